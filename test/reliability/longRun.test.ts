import { afterAll, describe, expect, it } from "vitest";
import { openLocal } from "../../lib/api/local.ts";
import { STEPS_PER_EXECUTION } from "../../lib/steps/stepBudget.ts";
import { cleanup, tempDataDir, testEnv } from "../support/cli.ts";
import {
  countingAgent,
  countingScript,
  crashAndResume,
  executionRecorder,
  worstHistory,
} from "../support/longRun.ts";
import { tally } from "./support/tally.ts";

const TURNS = 5_000;

describe(`a run of ${TURNS} turns`, () => {
  const dir = tempDataDir("long-5000");

  it("completes, handing over to a new execution every 500 steps, each far under 25,000 history events", async () => {
    const { agents, runs } = countingAgent();
    const observer = executionRecorder();
    const local = await openLocal({ dataDir: dir, env: testEnv(), agents, observer });
    try {
      const model = countingScript(dir, "count", TURNS);
      const startedAt = Date.now();
      const outcome = await local.runlog.start({ agent: "counter", input: "count", model, runId: "long" });
      const ms = Date.now() - startedAt;
      expect(outcome).toMatchObject({ status: "completed", output: `counted to ${TURNS}` });
      expect(runs.size).toBe(TURNS);
      expect(Math.max(...runs.values())).toBe(1);

      const executions = observer.executions.filter((e) => e.runId === "long");
      expect(executions).toHaveLength(Math.ceil((2 * TURNS + 1) / STEPS_PER_EXECUTION));
      expect(executions.map((e) => e.generation)).toEqual(executions.map((_, i) => i + 1));
      expect(executions.at(-1)?.ended).toBe("succeeded");
      const history = executions.map((e) => e.historyEvents);
      for (const events of history) expect(events).toBeLessThanOrEqual(worstHistory(STEPS_PER_EXECUTION));
      expect(Math.max(...history)).toBeLessThan(25_000 / 2);

      const log = await local.runlog.events("long");
      const resumed = log.filter((e) => e.type === "resumed");
      expect(resumed.map((e) => [e.generation, e.by])).toEqual(
        executions.slice(1).map((e) => [e.generation, "handoff"]),
      );
      expect(await local.runlog.resumePoint("long")).toMatchObject({ resumable: false, reason: "completed" });
      tally("long run", {
        turns: TURNS,
        events: log.length,
        executions: executions.length,
        maxHistoryEvents: Math.max(...history),
        seconds: Math.round(ms / 1000),
        msPerTurn: Math.round(ms / TURNS),
      });
    } finally {
      await local.close();
    }
  }, 1_800_000);
});

/** Crashes around a handoff (inside one: test/e2e/longRun.test.ts). */
describe.each(["handoff:after-append@3", "model:before@3", "tool:after-run@2"])(
  "a long run crashed at %s",
  (crashAt) => {
    const dir = tempDataDir(`long-crash-${crashAt.replace(/\W/g, "-")}`);
    afterAll(() => cleanup(dir));
    it("resumes to completion without running a tool twice", () => crashAndResume(dir, crashAt));
  },
);
