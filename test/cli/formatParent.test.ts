import { describe, expect, it } from "vitest";
import { describeEvent } from "../../lib/cli/format.ts";
import type { NewEvent, RunEvent } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";

const started = (fields: object) =>
  describeEvent(
    stamp(
      {
        type: "run_started",
        runId: "c",
        agent: "researcher",
        model: "scripted:x",
        input: "go",
        ...fields,
      } as NewEvent,
      1,
      new Date("2026-01-01T00:00:00.000Z"),
    ) as RunEvent,
  );

describe("runlog show's line for a run_started", () => {
  it.each([
    [
      "a sub-agent's child",
      { parent: { runId: "p", callId: "call_0_0" } },
      ", child of run p (call call_0_0)",
    ],
    ["a fork", { parent: { runId: "p", seq: 3 } }, ", forked from run p at seq 3"],
  ])("names the parent of %s", (_, fields, words) => {
    expect(started(fields)).toContain(words);
  });

  it("names no parent for a run started on its own", () => {
    expect(started({})).toBe('run started: agent researcher, model scripted:x, input "go"');
  });
});
