import { describe, expect, it } from "vitest";
import { describeEvent } from "../../lib/cli/format.ts";
import type { NewEvent, RunEvent } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";

const at = new Date("2026-01-01T00:00:00.000Z");
const line = (event: NewEvent) => describeEvent(stamp(event, 2, at) as RunEvent);
const usage = { inputTokens: 40, outputTokens: 12 };

describe("runlog show's line for a model turn", () => {
  it.each<[string, NewEvent, string]>([
    [
      "a response with its time and tokens",
      { type: "model_response", text: "hi", toolCalls: [], stop: "stop", ms: 812, usage },
      ' "hi" (812 ms, 40→12 tokens)',
    ],
    [
      "a response with tokens and no time",
      { type: "model_response", text: "hi", toolCalls: [], stop: "stop", usage },
      ' "hi" (40→12 tokens)',
    ],
    [
      "a rejected answer with its time and tokens",
      {
        type: "output_rejected",
        text: "{}",
        problems: "city: required",
        attempt: 1,
        retry: true,
        ms: 5,
        usage,
      },
      "asked again: city: required (5 ms, 40→12 tokens)",
    ],
    [
      "a rejected answer with tokens and no time",
      { type: "output_rejected", text: "{}", problems: "city: required", attempt: 2, retry: false, usage },
      "no try left: city: required (40→12 tokens)",
    ],
  ])("%s", (_, event, ending) => {
    expect(line(event).endsWith(ending)).toBe(true);
  });
});

describe("runlog show's line for a person's act: who it was, and whom they said they acted for", () => {
  it.each<[string, NewEvent, string]>([
    [
      "a decision made for someone",
      {
        type: "tool_decided",
        callId: "call_1",
        approved: true,
        by: "local:root",
        onBehalfOf: "ana",
        reason: "ok",
      },
      "approved call_1 by local:root for ana: ok",
    ],
    [
      "a decision made for nobody else",
      { type: "tool_decided", callId: "call_1", approved: false, by: "local:root" },
      "rejected call_1 by local:root",
    ],
    [
      "a cancel made for someone",
      { type: "cancelled", by: "arn:aws:iam::1:user/ops", onBehalfOf: "bob", reason: "stuck" },
      "cancelled by arn:aws:iam::1:user/ops for bob: stuck",
    ],
    [
      "a message sent for someone",
      {
        type: "resumed",
        generation: 2,
        kind: "call_model",
        description: "",
        input: "more",
        by: "person",
        actor: "local:root",
        onBehalfOf: "ana",
      },
      'user (generation 2): "more" (by local:root for ana)',
    ],
    [
      "a resume by the sweeper, which names no caller",
      { type: "resumed", generation: 3, kind: "call_model", description: "", by: "sweeper" },
      "resumed as generation 3: call_model",
    ],
  ])("%s", (_, event, expected) => {
    expect(line(event)).toBe(expected);
  });
});
