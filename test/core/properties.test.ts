import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Classification } from "../../lib/core/classify.ts";
import { classify } from "../../lib/core/classify.ts";
import { ResumeKindSchema } from "../../lib/core/eventFields.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { toMessages } from "../../lib/core/messageBuilder.ts";
import { anyLog, validLog } from "./arbitraries.ts";
import { historyProblem } from "./history.ts";
import { call } from "./logBuilder.ts";

const SETTINGS = { seed: 20250101, numRuns: 400 };
const REASONS = ["completed", "refused", "context_full", "unknown_stop", "empty", "malformed"];

/** Why a classification is not one a caller can act on, or null. */
function classificationProblem(c: Classification, events: readonly RunEvent[]): string | null {
  if (c.description.length === 0) return "no description";
  if (!c.resumable) {
    if (!REASONS.includes(c.reason)) return `unknown reason ${c.reason}`;
    if ((c.reason === "empty") !== (events.length === 0)) return "empty iff there are no events";
    if (c.reason === "empty") return null;
    if (c.seq === undefined || c.seq < 1 || c.seq > events.length) return `seq ${c.seq} is not in the log`;
    return null;
  }
  if (!ResumeKindSchema.options.includes(c.kind)) return `unknown kind ${c.kind}`;
  const unanswered = new Set(c.unansweredToolCalls.map((x) => x.id));
  if (c.interruptedToolCalls.some((x) => !unanswered.has(x.id)))
    return "an interrupted call is not unanswered";
  const hasCalls = c.unansweredToolCalls.length > 0;
  const hasInterrupted = c.interruptedToolCalls.length > 0;
  switch (c.kind) {
    case "run_tools":
      return hasCalls && !hasInterrupted ? null : "run_tools needs calls and no interrupted ones";
    case "recover_tools":
      return hasInterrupted ? null : "recover_tools needs interrupted calls";
    default:
      return hasCalls ? `${c.kind} with calls` : null;
  }
}

describe("on any sequence of events", () => {
  it("classify never throws and returns a classification a caller can act on", () => {
    fc.assert(
      fc.property(anyLog, (events) => {
        expect(classificationProblem(classify(events), events)).toBeNull();
      }),
      SETTINGS,
    );
  });

  it("toMessages never throws and gives a history a provider accepts", () => {
    fc.assert(
      fc.property(anyLog, (events) => {
        expect(historyProblem(toMessages(events))).toBeNull();
      }),
      SETTINGS,
    );
  });
});

describe("on a correct run cut off anywhere", () => {
  it("classify never calls it malformed", () => {
    fc.assert(
      fc.property(validLog, (events) => {
        const c = classify(events);
        expect(c.resumable ? c.kind : c.reason, c.description).not.toBe("malformed");
        expect(classificationProblem(c, events)).toBeNull();
      }),
      SETTINGS,
    );
  });

  it("toMessages gives a history a provider accepts", () => {
    fc.assert(
      fc.property(validLog, (events) => {
        expect(historyProblem(toMessages(events))).toBeNull();
      }),
      SETTINGS,
    );
  });
});

describe("the history checker", () => {
  const assistant = (...ids: string[]) => ({
    role: "assistant" as const,
    content: "",
    toolCalls: ids.map((id) => call(id)),
  });
  const answer = (id: string) => ({
    role: "tool" as const,
    toolCallId: id,
    name: "echo",
    content: "",
    isError: false,
  });
  const user = { role: "user" as const, content: "hi" };

  it.each([
    { problem: "a call never answered", history: [user, assistant("a", "b"), answer("a"), user] },
    {
      problem: "a message between a call and its answer",
      history: [user, assistant("a"), user, answer("a")],
    },
    { problem: "a call answered twice", history: [user, assistant("a"), answer("a"), answer("a")] },
    { problem: "an answer to another call", history: [user, assistant("a"), answer("b")] },
    { problem: "a tool message with no call", history: [user, answer("a")] },
    { problem: "an empty assistant message", history: [user, assistant()] },
  ])("rejects $problem", ({ history }) => {
    expect(historyProblem(history)).not.toBeNull();
  });

  it("accepts calls answered in any order", () => {
    expect(historyProblem([user, assistant("a", "b"), answer("b"), answer("a"), user])).toBeNull();
  });
});
