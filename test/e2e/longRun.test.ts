import { afterAll, describe, expect, it } from "vitest";
import { openLocal } from "../../lib/api/local.ts";
import { cleanup, storeEnv, tempDataDir, testEnv } from "../support/cli.ts";
import {
  countingAgent,
  countingScript,
  crashAndResume,
  executionRecorder,
  worstHistory,
} from "../support/longRun.ts";

const TURNS = 300;
const STEPS = 40;

describe("a long run hands over to a new execution every few steps", () => {
  const dir = tempDataDir("long-run");

  it(`completes ${TURNS} turns in executions of at most ${STEPS} steps, each a generation of its own`, async () => {
    const { agents, runs } = countingAgent();
    const observer = executionRecorder();
    const local = await openLocal({
      dataDir: dir,
      env: testEnv(storeEnv(dir)),
      agents,
      observer,
      stepsPerExecution: STEPS,
    });
    try {
      const model = countingScript(dir, "count", TURNS);
      const outcome = await local.runlog.start({ agent: "counter", input: "count", model, runId: "long" });
      expect(outcome).toMatchObject({ status: "completed", output: `counted to ${TURNS}` });
      // Every tool call ran exactly once.
      expect(runs.size).toBe(TURNS);
      expect(Math.max(...runs.values())).toBe(1);

      const log = await local.runlog.events("long");
      const resumed = log.filter((e) => e.type === "resumed");
      const executions = observer.executions.filter((e) => e.runId === "long");
      // Two steps a turn: each execution but the last ends after STEPS of them, by handing off.
      expect(executions).toHaveLength(Math.ceil((2 * TURNS + 1) / STEPS));
      expect(executions.map((e) => e.generation)).toEqual(executions.map((_, i) => i + 1));
      expect(executions.slice(0, -1).every((e) => e.ended === "handed_off")).toBe(true);
      expect(executions.at(-1)?.ended).toBe("succeeded");
      expect(resumed.map((e) => [e.generation, e.by])).toEqual(
        executions.slice(1).map((e) => [e.generation, "handoff"]),
      );
      for (const execution of executions) {
        expect(execution.historyEvents).toBeLessThanOrEqual(worstHistory(STEPS));
      }
      // About 9 history events a step (a Task, its Choice or Map iteration): far below the bound.
      expect(Math.max(...executions.map((e) => e.historyEvents))).toBeGreaterThan(8 * STEPS);
      expect(await local.runlog.resumePoint("long")).toMatchObject({ resumable: false, reason: "completed" });
    } finally {
      await local.close();
    }
  });
});

/** Crashes inside a handoff (more around it: test/reliability/longRun.test.ts). */
describe.each(["handoff:after-claim", "handoff:after-append"])("a long run crashed at %s", (crashAt) => {
  const dir = tempDataDir(`long-crash-${crashAt.replace(/\W/g, "-")}`);
  afterAll(() => cleanup(dir));
  it("resumes to completion without running a tool twice", () => crashAndResume(dir, crashAt));
});
