import { describe, expect, it } from "vitest";
import type { ResumePoint } from "../../lib/core/classify.ts";
import { planResume } from "../../lib/core/resumePlan.ts";

const call = (id: string, name: string) => ({ id, name, arguments: "{}" });
const wait = call("c1", "wait");
const note = call("c2", "write_note");
const fresh = call("c3", "get_weather");
const point = (interrupted: ReturnType<typeof call>[]): ResumePoint => ({
  resumable: true,
  kind: "recover_tools",
  description: "tool calls started and have no result: answer … as interrupted, then continue",
  unansweredToolCalls: [...interrupted, fresh],
  interruptedToolCalls: interrupted,
});
/** The agent's tools: wait and get_weather may run again, write_note may not. */
const tools = [
  { name: "wait", idempotent: true },
  { name: "get_weather", idempotent: true },
  { name: "write_note", idempotent: false },
];

describe("planResume", () => {
  it("lists a started call of an idempotent tool as run again, the others as interrupted", () => {
    const plan = planResume(point([wait, note]), tools);
    expect(plan.rerunToolCalls).toEqual([wait]);
    expect(plan.interruptedToolCalls).toEqual([note]);
    expect(plan.unansweredToolCalls).toEqual([wait, note, fresh]);
    expect(plan.description).toBe(
      "tool calls started and have no result: run wait (c1) again (the tool is idempotent); " +
        "answer write_note (c2) as interrupted, then continue",
    );
  });

  it("leaves a point with no idempotent call as the classifier said it", () => {
    const original = point([note]);
    expect(planResume(original, tools)).toEqual({ ...original, rerunToolCalls: [] });
  });
});
