import { afterAll, describe, expect, it } from "vitest";
import { cleanup, events, runlog, script, tempDataDir } from "../support/cli.ts";

const dir = tempDataDir("concurrent-resume");
afterAll(() => cleanup(dir));

describe("two runlog resume processes on one interrupted run", () => {
  it("exactly one resumes; the other exits non-zero, says why, and writes nothing", async () => {
    // The resumed model turn is slow, so both processes surely overlap.
    const model = script(dir, "slow", [{ text: "Done", stop: "stop", delayMs: 1500 }]);
    const crashed = await runlog(dir, ["run", "--run-id", "race", "--model", model, "go"], {
      RUNLOG_CRASH_AT: "model:before",
    });
    expect(crashed.code).toBe(137);
    const before = await events(dir, "race");

    const results = await Promise.all([runlog(dir, ["resume", "race"]), runlog(dir, ["resume", "race"])]);
    const codes = results.map((r) => r.code).sort();
    expect(codes).toEqual([0, 1]);
    const loser = results.find((r) => r.code === 1)!;
    expect(loser.stderr).toMatch(/being executed by|resumed by another process/);

    const after = await events(dir, "race");
    expect(after.slice(0, before.length)).toEqual(before);
    const resumed = after.filter((e) => e.type === "resumed");
    expect(resumed).toHaveLength(1);
    expect(resumed[0]).toMatchObject({ generation: 2 });
    expect(after.filter((e) => e.type === "model_response")).toHaveLength(1);
  });
});
