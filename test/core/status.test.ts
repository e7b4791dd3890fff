import { describe, expect, it } from "vitest";
import { classify } from "../../lib/core/classify.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { RUN_STATUSES, restingStatus } from "../../lib/core/status.ts";
import { log, withSeqs } from "./logBuilder.ts";

const rest = (events: RunEvent[]) => restingStatus(events, classify(events));

describe("restingStatus", () => {
  it.each([
    { ending: "a final answer", events: log().start().respond("Done").build(), status: "completed" },
    { ending: "a recorded model failure", events: log().start().failed().build(), status: "failed" },
    {
      ending: "a model failure and a resume marker",
      events: log().start().failed().resumed(2).build(),
      status: "failed",
    },
    {
      ending: "a failure that a later response recovered from",
      events: log().start().failed().respond("Half", "interrupted").build(),
      status: "interrupted",
    },
    { ending: "an unanswered user message", events: log().start().build(), status: "interrupted" },
    { ending: "calls never started", events: log().start().calls("a").build(), status: "interrupted" },
    {
      ending: "a call started with no result",
      events: log().start().calls("a").started("a").build(),
      status: "interrupted",
    },
    { ending: "all tool results", events: log().start().calls("a").ran("a").build(), status: "interrupted" },
    {
      ending: "a response that hit the output limit",
      events: log().start().respond("Lo", "max_output").build(),
      status: "interrupted",
    },
    { ending: "a refusal", events: log().start().respond("No", "refusal").build(), status: "refused" },
    {
      ending: "a full context window",
      events: log().start().respond("", "context_full").build(),
      status: "context_full",
    },
    {
      ending: "an unknown stop",
      events: log().start().respond("?", "weird").build(),
      status: "unknown_stop",
    },
    {
      ending: "a rejected answer with a try left",
      events: log().start().rejected(1).build(),
      status: "interrupted",
    },
    {
      ending: "a rejected answer with no try left",
      events: log().start().rejected(1).rejected(2, false).build(),
      status: "invalid_output",
    },
    {
      ending: "a gap in seq",
      events: withSeqs(log().start().user().build(), [1, 3]),
      status: "malformed",
    },
    { ending: "nothing", events: [], status: "empty" },
  ])("is $status for a log ending in $ending", ({ events, status }) => {
    expect(rest(events)).toBe(status);
  });

  it("never says running: only a live lease makes a run running", () => {
    const endings = [log().start().build(), log().start().calls("a").started("a").build(), []];
    for (const events of endings) expect(rest(events)).not.toBe("running");
  });

  it("only gives statuses the store knows", () => {
    const events = log().start().calls("a").build();
    expect(RUN_STATUSES).toContain(rest(events));
    expect(RUN_STATUSES).toContain(rest(log().start().respond("Done").build()));
  });
});
