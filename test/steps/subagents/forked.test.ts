import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { agentAsTool, defineAgent } from "../../../lib/index.ts";
import { createTestRunlog, type ScriptTurn, type TestRunlog } from "../../../lib/testing/index.ts";

const dir = mkdtempSync(join(tmpdir(), "forked-subagents-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function scripted(name: string, turns: ScriptTurn[]): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ turns }));
  return `scripted:${path}`;
}

const researcher = defineAgent({
  name: "researcher",
  instructions: "Find things out.",
  model: scripted("researcher", [{ text: "Lisbon", stop: "stop" }]),
});
const boss = defineAgent({
  name: "boss",
  instructions: "Ask the researcher.",
  model: scripted("boss", [
    { toolCalls: [{ name: "research", arguments: { input: "Capital of Portugal?" } }] },
    { text: "Done.", stop: "stop" },
  ]),
  tools: [agentAsTool(researcher, { name: "research", description: "Ask the researcher" })],
});

let opened: TestRunlog | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

describe("a fork cut inside a sub-agent call", () => {
  it("answers the call as interrupted, goes on by itself and never shares the parent's child", async () => {
    opened = await createTestRunlog({ agents: { boss } });
    const { runlog } = opened;
    await runlog.start({ agent: "boss", input: "go", runId: "p" });
    const parent = await opened.events("p");
    const started = parent.find((e) => e.type === "tool_started");
    expect(started).toMatchObject({ child: "p.call_0_0" });

    const forked = await runlog.fork({ runId: "p", atSeq: started!.seq, forkId: "fk" });
    expect(forked).toMatchObject({ runId: "fk", status: "completed", output: "Done." });

    const fork = await opened.events("fk");
    const result = fork.find((e) => e.type === "tool_result");
    expect(result).toMatchObject({ callId: "call_0_0", isError: true, interrupted: true });
    expect(result).toMatchObject({
      content: expect.stringContaining("child run p.call_0_0 belongs to run p"),
    });
    expect(fork.find((e) => e.type === "tool_started")).not.toHaveProperty("child");
    expect((await runlog.list({ childrenOf: "fk" })).runs).toEqual([]);
    // The parent and its child are as they were.
    expect(await opened.events("p")).toEqual(parent);
    expect((await runlog.list({ childrenOf: "p" })).runs.map((r) => r.runId)).toEqual(["p.call_0_0"]);
  });

  it("copies the sub-agent calls answered before the cut as they are", async () => {
    opened = await createTestRunlog({ agents: { boss } });
    const { runlog } = opened;
    await runlog.start({ agent: "boss", input: "go", runId: "p2" });
    const parent = await opened.events("p2");
    const answered = parent.find((e) => e.type === "tool_result")!;
    await runlog.fork({ runId: "p2", atSeq: answered.seq, forkId: "fk2" });
    expect((await opened.events("fk2")).slice(1, answered.seq)).toEqual(parent.slice(1, answered.seq));
  });
});
