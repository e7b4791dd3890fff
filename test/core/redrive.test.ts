import { describe, expect, it } from "vitest";
import type { NewEvent, RunEvent } from "../../lib/core/events.ts";
import { readLog } from "../../lib/core/logReader.ts";
import { redrivable, redriveStreakBoundary, redrivesInStreak } from "../../lib/core/redrive.ts";
import { LogBuilder } from "./logBuilder.ts";

const failure = (name: string, retryable: boolean): NewEvent => ({
  type: "model_failed",
  error: { name, message: "it failed" },
  retryable,
});
const redriven = (generation: number): NewEvent => ({
  type: "resumed",
  generation,
  kind: "call_model",
  description: "redrive",
  by: "redrive",
});
const log = () => new LogBuilder().start();

describe("redrivable: which failed runs a redrive resumes, from the log alone", () => {
  it.each<[string, RunEvent[], boolean, string?]>([
    ["a model unavailable (connection, 429, 5xx)", log().failed().build(), true],
    [
      "a RetryableError recorded before model errors had names",
      log().add(failure("RetryableError", true)).build(),
      true,
    ],
    ["a failure after tool turns", log().calls("a").ran("a").failed().build(), true],
    [
      "a failure after an earlier redrive failed again",
      log().failed().add(redriven(2)).failed().build(),
      true,
    ],
    ["a rejected request", log().add(failure("ModelRejectedError", false)).build(), false, "rejected"],
    [
      "a failure recorded as not retryable",
      log().add(failure("PermanentError", false)).build(),
      false,
      "rejected",
    ],
    [
      "a rejection whose flag says retryable",
      log().add(failure("ModelRejectedError", true)).build(),
      false,
      "rejected",
    ],
    ["a completed run", log().respond("done").build(), false, "does not end"],
    ["a run that was never failed", log().build(), false, "does not end"],
    // A generation opened and never executed still fails at that call: redrive completes it.
    ["a failure resumed whose generation never ran", log().failed().resumed(2).build(), true],
    ["a failure then a new message", log().failed().send(2).build(), false, "does not end"],
    ["a cancelled run", log().failed().cancelled().build(), false, "cancelled"],
  ])("%s", (_, events, expected, why) => {
    const verdict = redrivable(readLog(events));
    expect(verdict.redrivable).toBe(expected);
    if (!verdict.redrivable) expect(verdict.why).toContain(why);
    else expect(verdict.failure).toBe(events.findLast((e) => e.type === "model_failed"));
  });

  it("a malformed log is not redriven", () => {
    const events = log().failed().build();
    const gap = [events[0]!, { ...events[1]!, seq: 3 }];
    expect(redrivable(readLog(gap))).toMatchObject({
      redrivable: false,
      why: expect.stringContaining("malformed"),
    });
  });
});

describe("redrivesInStreak: redrives since the run last made progress", () => {
  it.each<[string, RunEvent[], number]>([
    ["none yet", log().failed().build(), 0],
    ["one that failed again", log().failed().add(redriven(2)).failed().build(), 1],
    ["two in a row", log().failed().add(redriven(2)).failed().add(redriven(3)).failed().build(), 2],
    [
      "a response in between starts a new streak",
      log().failed().add(redriven(2)).calls("a").ran("a").failed().build(),
      0,
    ],
    ["a person's resume is not a redrive", log().failed().resumed(2).failed().build(), 0],
  ])("%s", (_, events, count) => {
    expect(redrivesInStreak(events)).toBe(count);
  });

  it("the boundary reads back to the latest progress, or as far as its limit", () => {
    const events = log().respond("hi").user().failed().add(redriven(2)).failed().build();
    const stopAt = (limit: number) => {
      const stop = redriveStreakBoundary(limit);
      return events.toReversed().findIndex(stop);
    };
    expect(stopAt(100)).toBe(3); // the user message
    expect(stopAt(2)).toBe(1);
  });
});
