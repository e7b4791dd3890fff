import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../lib/core/events.ts";
import { inputsOf, scriptOf } from "../../lib/core/replay.ts";
import {
  comparedCallsOf,
  missingAnswer,
  Recording,
  recordedCallsOf,
  unansweredCallsOf,
} from "../../lib/core/replayCalls.ts";
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

describe("callDifferences of calls with how they ended", () => {
  const ended = (name: string, outcome: string, error?: string) => ({
    ...call(name, {}),
    outcome: outcome as "result",
    ...(error === undefined ? {} : { error }),
  });
  it.each([
    ["the same endings", [ended("a", "result")], [ended("a", "result")], []],
    [
      "an error where there was a result",
      [ended("a", "result")],
      [ended("a", "error", "no")],
      ["tool_call_outcome"],
    ],
    [
      "a result where there was an error",
      [ended("a", "error", "no")],
      [ended("a", "result")],
      ["tool_call_outcome"],
    ],
    ["another error", [ended("a", "error", "no")], [ended("a", "error", "never")], ["tool_call_outcome"]],
    ["the same error", [ended("a", "error", "no")], [ended("a", "error", "no")], []],
    [
      "an answer where none came",
      [ended("a", "waiting")],
      [ended("a", "error", "no")],
      ["tool_call_outcome"],
    ],
    ["no answer either way", [ended("a", "unfinished")], [ended("a", "unfinished")], []],
    [
      "other arguments, named once",
      [ended("a", "result")],
      [{ ...call("a", { x: 1 }), outcome: "error" as const, error: "no" }],
      ["tool_call_arguments"],
    ],
  ])("%s", (_, recorded, replayed, kinds) => {
    expect(callDifferences(recorded, replayed).map((d) => d.what)).toEqual(kinds);
  });

  it("names the call and both endings", () => {
    const [changed] = callDifferences(
      [ended("lookup", "result")],
      [ended("lookup", "error", "unknown tool")],
    );
    expect(changed).toEqual({
      what: "tool_call_outcome",
      recorded: { name: "lookup", arguments: "{}", outcome: "result" },
      replayed: { name: "lookup", arguments: "{}", outcome: "error", error: "unknown tool" },
    });
    expect(describeDifference(changed!)).toBe(
      'tool call ended otherwise: lookup({}): a result -> error "unknown tool"',
    );
    const [waited] = callDifferences([ended("refund", "waiting")], [ended("refund", "error", "x")]);
    expect(describeDifference(waited!)).toBe(
      'tool call ended otherwise: refund({}): no result (waiting for a decision) -> error "x"',
    );
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

  it("tells how each call ended, and why one has no result", () => {
    const more: RunEvent[] = [
      ...events,
      {
        v: 1,
        seq: 10,
        at,
        type: "model_response",
        text: "",
        stop: "tool_calls",
        toolCalls: [
          { id: "d1", name: "t", arguments: "{}" },
          { id: "d2", name: "t", arguments: '{"n":2}' },
          { id: "d3", name: "u", arguments: "{}" },
          { id: "d4", name: "u", arguments: '{"n":4}' },
        ],
        approvals: ["d3", "d4"],
      },
      { v: 1, seq: 11, at, type: "tool_started", callId: "d1", name: "t" },
      { v: 1, seq: 12, at, type: "tool_decided", callId: "d4", approved: true, by: "ana" },
    ];
    expect(comparedCallsOf(more).map(({ name, outcome, error }) => [name, outcome, error])).toEqual([
      ["t", "result", undefined],
      ["t", "error", "bad"],
      // A call before a later response that never got a result (the run went on without it).
      ["u", "not_run", undefined],
      ["t", "unfinished", undefined],
      ["t", "not_run", undefined],
      ["u", "waiting", undefined],
      ["u", "not_run", undefined],
    ]);
    const unanswered = unansweredCallsOf(more);
    expect(unanswered.map((c) => c.outcome)).toEqual([
      "not_run",
      "unfinished",
      "not_run",
      "waiting",
      "not_run",
    ]);
    expect(missingAnswer("r", "u", "{}", unanswered[3])).toBe(
      "the recording of run r has this call of u ({}) but no result to answer it with: it was waiting for a person's decision when the recording ended, and a replay asks nobody",
    );
    expect(missingAnswer("r", "u", "{}")).toBe(
      "the recording of run r has no call of u with these arguments ({}) left to answer it",
    );
    const recording = new Recording(recordedCallsOf(more), unanswered);
    const keyOf = (c: { arguments: string }) => c.arguments;
    expect(recording.take("u", "{}", keyOf)).toBeUndefined();
    expect(recording.withoutResult("u", "{}", keyOf)).toMatchObject({ name: "u", outcome: "waiting" });
  });

  it("gives each recorded result once, by name and canonical arguments", () => {
    const recording = new Recording(recordedCallsOf(events));
    const keyOf = (c: { arguments: string }) => c.arguments;
    expect(recording.take("t", '{"a":2,"b":1}', keyOf)?.content).toBe("one");
    expect(recording.take("t", '{"a":2,"b":1}', keyOf)).toBeUndefined();
    expect(recording.take("t", "not json", keyOf)).toMatchObject({ content: "bad", isError: true });
  });
});
