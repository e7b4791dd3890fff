import { describe, expect, it } from "vitest";
import type { NewEvent } from "../../lib/core/events.ts";
import { readLog } from "../../lib/core/logReader.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { NextAction } from "../../lib/ports/runtime.ts";
import { STEPS_PER_EXECUTION, withinBudget } from "../../lib/steps/stepBudget.ts";
import { WORST_MODEL_STEP, WORST_TOOL_STEP, worstHistory } from "../support/longRun.ts";

const at = new Date("2026-01-01T00:00:00Z");
const log = (...events: NewEvent[]) => events.map((event, i) => stamp(event, i + 1, at));
const start: NewEvent = { type: "run_started", runId: "r", agent: "a", model: "m", input: "go" };
const response: NewEvent = {
  type: "model_response",
  text: "",
  toolCalls: [{ id: "c", name: "t", arguments: "{}" }],
  stop: "tool_calls",
};
const started: NewEvent = { type: "tool_started", callId: "c", name: "t" };
const result: NewEvent = { type: "tool_result", callId: "c", name: "t", content: "ok", isError: false };
const resumed: NewEvent = {
  type: "resumed",
  generation: 2,
  kind: "call_model",
  description: "d",
  by: "handoff",
};

describe("the steps of this generation (LogFacts.generationSteps)", () => {
  it.each([
    ["a new run", log(start), 0],
    ["a turn (a response, a tool result; tool_started is no step)", log(start, response, started, result), 2],
    ["only what came after the latest resume", log(start, response, started, result, resumed, response), 1],
    ["a generation that has just begun", log(start, response, started, result, resumed), 0],
    [
      "a second generation's turn, after a marker with a new message",
      log(start, response, started, result, { ...resumed, input: "more" }, response, started, result),
      2,
    ],
  ])("%s", (_, events, steps) => {
    expect(readLog(events).generationSteps).toBe(steps);
  });
});

describe("withinBudget", () => {
  const model: NextAction = { action: "model" };
  const tools = (n: number): NextAction => ({
    action: "tools",
    callIds: Array.from({ length: n }, (_, i) => `c${i}`),
  });
  it.each([
    ["a model call that fits", model, 9, 10, model],
    ["a model call past the limit", model, 10, 10, { action: "handoff" }],
    ["a batch that fits exactly", tools(3), 7, 10, tools(3)],
    ["a batch that would cross the limit", tools(4), 7, 10, { action: "handoff" }],
    ["a batch wider than the limit, first in its execution", tools(40), 0, 10, tools(40)],
    ["the end of the run", { action: "done" }, 50, 10, { action: "done" }],
  ] as [string, NextAction, number, number, NextAction][])("%s", (_, next, used, limit, expected) => {
    expect(withinBudget(next, used, limit)).toEqual(expected);
  });

  it("defaults to a bound whose worst case, from the definition's retries, stays far below 25,000 history events", () => {
    // The arithmetic lib/steps/stepBudget.ts and docs/concepts/generations.md state: 38 and 37 events a step.
    expect([WORST_MODEL_STEP, WORST_TOOL_STEP]).toEqual([38, 37]);
    expect(worstHistory(STEPS_PER_EXECUTION)).toBe(19_060);
    // Every step spending every retry (6 of them on Lambda's throttles alone) still leaves a quarter spare.
    expect(worstHistory(STEPS_PER_EXECUTION)).toBeLessThan(25_000 * 0.8);
  });
});
