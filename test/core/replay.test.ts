import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../lib/core/events.ts";
import { inputsOf, Recording, recordedCallsOf, scriptOf } from "../../lib/core/replay.ts";
import { callDifferences, describeDifference } from "../../lib/core/replayDiff.ts";

const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });
const at = "2026-12-05T00:00:00.000Z";

describe("callDifferences", () => {
  it.each([
    ["the same calls", [call("a", { x: 1 }), call("b", {})], [call("a", { x: 1 }), call("b", {})], []],
    ["a call added", [call("a", {})], [call("a", {}), call("b", {})], ["tool_call_added"]],
    [
      "a call removed in the middle",
      [call("a", {}), call("b", {}), call("c", {})],
      [call("a", {}), call("c", {})],
      ["tool_call_removed"],
    ],
    [
      "other arguments",
      [call("a", { x: 1 }), call("b", {})],
      [call("a", { x: 2 }), call("b", {})],
      ["tool_call_arguments"],
    ],
    ["a different tool", [call("a", {})], [call("b", {})], ["tool_call_removed", "tool_call_added"]],
  ])("%s", (_, recorded, replayed, kinds) => {
    expect(callDifferences(recorded, replayed).map((d) => d.what)).toEqual(kinds);
  });

  it("says each difference in one line", () => {
    const [changed] = callDifferences([call("a", { x: 1 })], [call("a", { x: 2 })]);
    expect(describeDifference(changed!)).toBe('tool call arguments changed: a({"x":1}) -> a({"x":2})');
  });
});

describe("a run's script, inputs and recording", () => {
  const events: RunEvent[] = [
    { v: 1, seq: 1, at, type: "run_started", runId: "r", agent: "demo", model: "m", input: "hi" },
    {
      v: 1,
      seq: 2,
      at,
      type: "model_failed",
      error: { name: "ModelUnavailableError", message: "429 Too Many Requests" },
      retryable: true,
    },
    { v: 1, seq: 3, at, type: "resumed", generation: 2, kind: "call_model", description: "d" },
    {
      v: 1,
      seq: 4,
      at,
      type: "model_response",
      text: "",
      stop: "tool_calls",
      toolCalls: [
        { id: "c1", name: "t", arguments: '{"b": 1, "a": 2}' },
        { id: "c2", name: "t", arguments: "not json" },
        { id: "c3", name: "u", arguments: '{"b":1}' },
      ],
      usage: { inputTokens: 3, outputTokens: 4 },
    },
    { v: 1, seq: 5, at, type: "tool_result", callId: "c1", name: "t", content: "one", isError: false },
    { v: 1, seq: 6, at, type: "tool_result", callId: "c2", name: "t", content: "bad", isError: true },
    { v: 1, seq: 7, at, type: "model_response", text: "done", toolCalls: [], stop: "stop" },
    {
      v: 1,
      seq: 8,
      at,
      type: "resumed",
      generation: 3,
      kind: "call_model",
      description: "d",
      input: "again",
    },
    { v: 1, seq: 9, at, type: "model_response", text: "ok", toolCalls: [], stop: "max_output" },
  ];

  it("writes every model turn, failures too, with the arguments' exact text", () => {
    expect(scriptOf(events).turns).toEqual([
      { error: "rate_limit" },
      {
        text: "",
        stop: "tool_calls",
        // Text JSON.stringify would not give back is kept as text, sent as it was.
        toolCalls: [
          { name: "t", arguments: '{"b": 1, "a": 2}' },
          { name: "t", arguments: "not json" },
          { name: "u", arguments: { b: 1 } },
        ],
        usage: { inputTokens: 3, outputTokens: 4 },
      },
      { text: "done", stop: "stop" },
      { text: "ok", stop: "max_output" },
    ]);
  });

  it("lists the user's inputs in order", () => {
    expect(inputsOf(events)).toEqual(["hi", "again"]);
  });

  it("gives each recorded result once, by name and canonical arguments", () => {
    const recording = new Recording(recordedCallsOf(events));
    const keyOf = (c: { arguments: string }) => c.arguments;
    expect(recording.take("t", '{"a":2,"b":1}', keyOf)?.content).toBe("one");
    expect(recording.take("t", '{"a":2,"b":1}', keyOf)).toBeUndefined();
    expect(recording.take("t", "not json", keyOf)).toMatchObject({ content: "bad", isError: true });
  });
});
