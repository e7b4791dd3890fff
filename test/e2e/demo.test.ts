import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, events, notes, runlog, storeEnv, tempDataDir } from "../support/cli.ts";

const dir = tempDataDir("demo");
const demoDir = join(dir, "demo");
afterAll(() => cleanup(demoDir));

describe("runlog demo (what npm start runs)", () => {
  it("crashes a child right after a note is written, resumes it, and tells what its log shows", async () => {
    // The demo keeps its runs in demoDir: on DynamoDB, in that dir's table.
    const result = await runlog(dir, ["demo"], storeEnv(demoDir));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("model scripted (offline");
    expect(result.stdout).toContain("the child exited with code 137");
    const runId = /Try: npx runlog show (\S+)/.exec(result.stdout)?.[1];
    expect(runId).toBeDefined();
    const log = await events(demoDir, runId!);

    // Where the child died: the last seq before the resume, as printed.
    const resumedAt = log.findIndex((e) => e.type === "resumed");
    const crashedAt = log[resumedAt - 1]!.seq;
    expect(result.stdout).toContain(`its log ends at #${crashedAt}:`);
    // Deterministic: the first note had run (its line is in notes.txt) and its result was lost.
    expect(log.slice(0, resumedAt).at(-1)).toMatchObject({ type: "tool_started", name: "write_note" });
    expect(log[resumedAt]).toMatchObject({ kind: "recover_tools" });
    expect(result.stdout).toMatch(/recover_tools: .*answer write_note \(call_1_0\) as interrupted/);

    // Every sentence about the resume names what the log holds after the crash, and nothing else.
    const after = log.filter((e) => e.seq > crashedAt);
    const interrupted = after.filter((e) => e.type === "tool_result" && e.interrupted);
    const ran = after.filter((e) => e.type === "tool_result" && !e.interrupted);
    expect(interrupted.map((e) => e.callId)).toEqual(["call_1_0"]);
    expect(ran.map((e) => e.callId)).toEqual(["call_2_0"]);
    for (const e of interrupted)
      expect(result.stdout).toContain(`was answered as interrupted (#${e.seq}), not run again`);
    for (const e of ran) expect(result.stdout).toContain(`ran after the resume: finished (#${e.seq})`);
    expect(result.stdout.match(/answered as interrupted \(#/g)).toHaveLength(interrupted.length);
    const answers = after.filter((e) => e.type === "model_response").length;
    expect(result.stdout).toContain(`the model was called ${answers} time(s) after the resume`);

    // The side effects agree: each note once, the interrupted one because it ran before the crash.
    expect(notes(demoDir)).toEqual(["Pack sunglasses", "Book a table by the river"]);
    expect(result.stdout).toContain('"Pack sunglasses": written once');
    expect(result.stdout).toContain('"Book a table by the river": written once');
    expect(result.stdout).not.toMatch(/WRITTEN TWICE|the rest goes on/);
    expect(log.at(-1)).toMatchObject({ type: "model_response", stop: "stop" });
  });
});
