import { afterAll, describe, expect, it } from "vitest";
import { RUN_STATUSES } from "../../lib/core/status.ts";
import { cleanup, events, runlog, runlogJson, script, tempDataDir } from "../support/cli.ts";
import { cli } from "./support.ts";

const dir = tempDataDir("cli-list");
afterAll(() => cleanup(dir));

const ids = (json: unknown) => (json as { runs: { runId: string }[] }).runs.map((run) => run.runId);

describe("runlog ls", () => {
  it("lists a run's forks with --forks-of, and the runs in a status with --status", async () => {
    expect((await runlogJson(dir, ["run", "--run-id", "origin", "Plan my afternoon"])).code).toBe(0);
    for (const id of ["first-fork", "second-fork"]) {
      expect((await runlogJson(dir, ["fork", "origin", "--at", "2", "--id", id])).code).toBe(0);
    }
    expect((await runlogJson(dir, ["fork", "first-fork", "--id", "grandchild"])).code).toBe(0);

    const forks = await runlogJson(dir, ["ls", "--forks-of", "origin"]);
    expect(ids(forks.json)).toEqual(["second-fork", "first-fork"]);
    expect((forks.json as { runs: unknown[] }).runs[0]).toMatchObject({
      parent: { runId: "origin", seq: 2 },
    });
    expect(ids((await runlogJson(dir, ["ls", "--forks-of", "first-fork"])).json)).toEqual(["grandchild"]);
    expect(ids((await runlogJson(dir, ["ls", "--status", "completed"])).json).sort()).toEqual([
      "first-fork",
      "grandchild",
      "origin",
      "second-fork",
    ]);

    const none = await cli(["ls", "--forks-of", "grandchild"], { dir });
    expect(none).toMatchObject({ code: 0, stdout: `no forks of run grandchild in ${dir}\n` });
    // A typo'd id is not a run without forks.
    const typo = await cli(["ls", "--forks-of", "no-such-run"], { dir });
    expect(typo).toMatchObject({ code: 2, stdout: "", stderr: "runlog: run no-such-run not found\n" });
    const human = await cli(["ls", "--status", "paused"], { dir });
    expect(human.stdout).toBe(`no paused runs in ${dir}\n`);
  });

  it("lists a killed run, whose head still says running, under the status its log rests in", async () => {
    const killed = await runlog(dir, ["run", "--run-id", "killed", "Plan my afternoon"], {
      RUNLOG_CRASH_AT: "tool:after-start",
    });
    expect(killed.code, killed.stderr).toBe(137);
    expect(ids((await runlogJson(dir, ["ls", "--status", "interrupted"])).json)).toEqual(["killed"]);
    expect(ids((await runlogJson(dir, ["ls", "--status", "running"])).json)).toEqual([]);
  });

  it("shows a paused run's last seq and time from its log after a decision that leaves it waiting", async () => {
    const two = script(dir, "two-emails", [
      {
        toolCalls: [
          { name: "send_email", arguments: { to: "ana@example.com", subject: "Lunch" } },
          { name: "send_email", arguments: { to: "bo@example.com", subject: "Tea" } },
        ],
      },
      { text: "Sent." },
    ]);
    expect((await runlog(dir, ["run", "--run-id", "half-decided", "--model", two, "mail"])).code).toBe(3);
    expect((await runlog(dir, ["approve", "half-decided", "call_0_0"])).code).toBe(3);
    const log = await events(dir, "half-decided");
    expect(log.at(-1)).toMatchObject({ type: "tool_decided", callId: "call_0_0" });
    const listed = (await runlogJson(dir, ["ls", "--status", "paused"])).json as {
      runs: { runId: string; lastSeq: number; updatedAt: string }[];
    };
    expect(listed.runs.find((run) => run.runId === "half-decided")).toMatchObject({
      lastSeq: log.at(-1)!.seq,
      updatedAt: log.at(-1)!.at,
    });
  });

  it("lines its columns up however long a run id is (an Idempotency-Key's is 37 characters)", async () => {
    const long = "idem-0123456789abcdef0123456789abcdef"; // 37 characters: past the 30 once reserved
    expect(long).toHaveLength(37);
    for (const runId of [long, "short"])
      expect((await runlogJson(dir, ["run", "--run-id", runId, "Plan my afternoon"])).code).toBe(0);
    const listed = (await runlogJson(dir, ["ls"])).json as {
      runs: { runId: string; status: string; agent: string; updatedAt: string }[];
    };
    const lines = (await cli(["ls"], { dir })).stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(listed.runs.length);
    const starts = listed.runs.map((run, i) => {
      const line = lines[i]!;
      expect(line.startsWith(`${run.runId} `)).toBe(true);
      const status = line.indexOf(` ${run.status} `, run.runId.length) + 1;
      return {
        status,
        agent: line.indexOf(` ${run.agent} `, status) + 1,
        at: line.lastIndexOf(run.updatedAt),
      };
    });
    expect(starts[0]?.status).toBeGreaterThan(long.length);
    for (const start of starts) expect(start).toEqual(starts[0]);
  });

  it("names the statuses when --status is not one", async () => {
    const result = await cli(["ls", "--status", "sleeping"], { dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `runlog: ls --status: expected one of ${RUN_STATUSES.join(", ")}, got "sleeping"\n`,
    );
  });
});
