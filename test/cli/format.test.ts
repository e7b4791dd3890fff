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
