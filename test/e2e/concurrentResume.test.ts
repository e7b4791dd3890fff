import { afterAll, describe, expect, it } from "vitest";
import { cleanup, events, runlog, script, tempDataDir } from "../support/cli.ts";

const dir = tempDataDir("concurrent-resume");
afterAll(() => cleanup(dir));

describe("two runlog resume processes on one interrupted run", () => {
  it("exactly one resumes; the other says why and writes nothing", async () => {
    // The resumed model turn is slow, so both processes surely overlap.
    const model = script(dir, "slow", [{ text: "Done", stop: "stop", delayMs: 3000 }]);
    const crashed = await runlog(dir, ["run", "--run-id", "race", "--model", model, "go"], {
      RUNLOG_CRASH_AT: "model:before",
    });
    expect(crashed.code).toBe(137);
    const before = await events(dir, "race");

    const results = await Promise.all([runlog(dir, ["resume", "race"]), runlog(dir, ["resume", "race"])]);
    // The loser overlapped the winner (exit 1, saying why) or, on a slow machine, came after it
    // finished and found nothing to resume (exit 0, saying so). Either way only one resumed.
    const winners = results.filter((r) => r.code === 0 && !r.stdout.includes("nothing to resume"));
    expect(winners, results.map((r) => `exit ${r.code}: ${r.stdout} ${r.stderr}`).join("\n")).toHaveLength(1);
    const loser = results.find((r) => r !== winners[0])!;
    if (loser.code === 0)
      expect(loser.stdout).toMatch(/nothing to resume: the run ended with a final answer/);
    else expect(loser.stderr).toMatch(/being executed|resumed by another process|claimed it first/);

    const after = await events(dir, "race");
    expect(after.slice(0, before.length)).toEqual(before);
    // The crash came before generation 1 did anything: the winner executes that generation,
    // opening none of its own.
    expect(after.filter((e) => e.type === "resumed")).toHaveLength(0);
    expect(after.filter((e) => e.type === "model_response")).toHaveLength(1);
  });
});
