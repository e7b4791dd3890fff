import { describe, expect, it } from "vitest";
import type { Classification } from "../../lib/core/classify.ts";
import { classify } from "../../lib/core/classify.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { call, log, withSeqs } from "./logBuilder.ts";

const transferCall = (id: string) => call(id, "transfer_to_billing", '{"reason":"a refund"}');

/** What a user of the classification relies on, with call ids instead of whole calls. */
function outcome(c: Classification) {
  return c.resumable
    ? {
        kind: c.kind,
        unanswered: c.unansweredToolCalls.map((call) => call.id),
        interrupted: c.interruptedToolCalls.map((call) => call.id),
      }
    : { reason: c.reason, seq: c.seq };
}

const resume = (kind: string, unanswered: string[] = [], interrupted: string[] = []) => ({
  kind,
  unanswered,
  interrupted,
});
const stopped = (reason: string, seq?: number) => ({ reason, seq });

interface Row {
  ending: string;
  events: RunEvent[];
  expected: ReturnType<typeof resume> | ReturnType<typeof stopped>;
}

const resumable: Row[] = [
  {
    ending: "a transferred event that answers the response's only call",
    events: log().start().callsOf(transferCall("t")).transferred("t").build(),
    expected: resume("call_model"),
  },
  {
    ending: "a transferred event with another call of the response still to run",
    events: log().start().callsOf(transferCall("t"), call("a")).transferred("t").build(),
    expected: resume("run_tools", ["a"]),
  },
  {
    ending: "a transferred event with another call of the response started, no result",
    events: log().start().callsOf(call("a"), transferCall("t")).started("a").transferred("t").build(),
    expected: resume("recover_tools", ["a"], ["a"]),
  },
  {
    ending: "a tool result after a transfer in the same response",
    events: log().start().callsOf(transferCall("t"), call("a")).transferred("t").ran("a").build(),
    expected: resume("call_model"),
  },
  {
    ending: "a transfer call never answered (a crash before transferred was written)",
    events: log().start().callsOf(transferCall("t")).build(),
    expected: resume("run_tools", ["t"]),
  },
  { ending: "just run_started", events: log().start().build(), expected: resume("call_model") },
  {
    ending: "a follow-up user message after a final answer",
    events: log().start().respond("Hi").user("more").build(),
    expected: resume("call_model"),
  },
  {
    ending: "a resumed marker after a user message",
    events: log().start().resumed(2).build(),
    expected: resume("call_model"),
  },
  {
    ending: "a recorded model failure",
    events: log().start().failed().build(),
    expected: resume("call_model"),
  },
  {
    ending: "tool results, all there",
    events: log().start().calls("a", "b").ran("b", "a").build(),
    expected: resume("call_model"),
  },
  {
    ending: "tool calls never started",
    events: log().start().calls("a", "b").build(),
    expected: resume("run_tools", ["a", "b"]),
  },
  {
    ending: "some results, the rest never started",
    events: log().start().calls("a", "b", "c").ran("b").build(),
    expected: resume("run_tools", ["a", "c"]),
  },
  {
    ending: "a call started with no result",
    events: log().start().calls("a", "b", "c").ran("a").started("b").build(),
    expected: resume("recover_tools", ["b", "c"], ["b"]),
  },
  {
    ending: "a call started with no result, then a resumed marker",
    events: log().start().calls("a", "b", "c").ran("a").started("b").resumed(2, "recover_tools").build(),
    expected: resume("recover_tools", ["b", "c"], ["b"]),
  },
  {
    ending: "a response cut off by a failure",
    events: log().start().respond("Half an ans", "interrupted").build(),
    expected: resume("retry_response"),
  },
  {
    ending: "a response that hit the output limit",
    events: log().start().respond("A long answ", "max_output").build(),
    expected: resume("continue_response"),
  },
  {
    ending: "a response that hit the output limit before anything of it was kept (its tool call cut off)",
    events: log().start().respond("", "max_output").build(),
    expected: resume("retry_response"),
  },
  {
    ending: "a final answer its output schema rejected, with a try left",
    events: log().start().rejected(1).build(),
    expected: resume("call_model"),
  },
  {
    ending: "a second rejected answer with a try left, after tool calls",
    events: log().start().rejected(1).calls("a").ran("a").rejected(2).build(),
    expected: resume("call_model"),
  },
  {
    ending: "a rejected answer, then a resumed marker",
    events: log().start().rejected(1).resumed(2).build(),
    expected: resume("call_model"),
  },
  {
    ending: "tool calls made after a rejected answer, never started",
    events: log().start().rejected(1).calls("a").build(),
    expected: resume("run_tools", ["a"]),
  },
];

const notResumable: Row[] = [
  {
    ending: "a final answer",
    events: log().start().respond("Done").build(),
    expected: stopped("completed", 2),
  },
  {
    ending: "a final answer, then a resumed marker",
    events: log().start().respond("Done").resumed(2).build(),
    expected: stopped("completed", 2),
  },
  {
    ending: "a refusal",
    events: log().start().respond("No", "refusal").build(),
    expected: stopped("refused", 2),
  },
  {
    ending: "a full context window",
    events: log().start().calls("a").ran("a").respond("", "context_full").build(),
    expected: stopped("context_full", 5),
  },
  {
    ending: "an unknown stop word",
    events: log().start().respond("?", "content_filter").build(),
    expected: stopped("unknown_stop", 2),
  },
  {
    ending: "a rejected answer with no try left",
    events: log().start().rejected(1).rejected(2).rejected(3, false).build(),
    expected: stopped("invalid_output", 4),
  },
  {
    ending: "a rejected answer with no try left, then a resumed marker",
    events: log().start().rejected(1, false).resumed(2).build(),
    expected: stopped("invalid_output", 2),
  },
  {
    ending: "an accepted answer after a rejected one",
    events: log().start().rejected(1).respond('{"ok":true}').build(),
    expected: stopped("completed", 3),
  },
  { ending: "no events", events: [], expected: stopped("empty") },
];

const malformed: Row[] = [
  {
    ending: "a tool result that answers no call",
    events: log().start().result("ghost").build(),
    expected: stopped("malformed", 2),
  },
  {
    ending: "a tool result for a call of a closed batch",
    events: log().start().calls("a").ran("a").respond("Done").result("a").build(),
    expected: stopped("malformed", 6),
  },
  {
    ending: "a second result for one call",
    events: log().start().calls("a", "b").ran("a").result("a").build(),
    expected: stopped("malformed", 5),
  },
  {
    ending: "a gap in seq",
    events: withSeqs(log().start().user().user().build(), [1, 2, 4]),
    expected: stopped("malformed", 3),
  },
  {
    ending: "a duplicate seq",
    events: withSeqs(log().start().user().user().build(), [1, 2, 2]),
    expected: stopped("malformed", 3),
  },
  {
    ending: "a log not starting with run_started",
    events: log().user().build(),
    expected: stopped("malformed", 1),
  },
  {
    ending: "a second run_started",
    events: log().start().start().build(),
    expected: stopped("malformed", 2),
  },
  {
    ending: "a tool_started for an unknown call",
    events: log().start().calls("a").started("zz").build(),
    expected: stopped("malformed", 3),
  },
  {
    ending: "a tool_started after its call's result",
    events: log().start().calls("a", "b").ran("a").started("a").build(),
    expected: stopped("malformed", 5),
  },
  {
    ending: "a model response while calls are unanswered",
    events: log().start().calls("a", "b").ran("a").respond("Done").build(),
    expected: stopped("malformed", 5),
  },
  {
    ending: "a user message while calls are unanswered",
    events: log().start().calls("a").user().build(),
    expected: stopped("malformed", 3),
  },
  {
    ending: "a rejected answer while calls are unanswered",
    events: log().start().calls("a").rejected(1).build(),
    expected: stopped("malformed", 3),
  },
  {
    ending: "a model failure while calls are unanswered",
    events: log().start().calls("a").started("a").failed().build(),
    expected: stopped("malformed", 4),
  },
  {
    ending: "stop tool_calls with no calls",
    events: log().start().respond("", "tool_calls").build(),
    expected: stopped("malformed", 2),
  },
  {
    ending: "two calls sharing an id",
    events: log().start().calls("a", "a").build(),
    expected: stopped("malformed", 2),
  },
  {
    ending: "a transferred event that answers no call",
    events: log().start().transferred("ghost").build(),
    expected: stopped("malformed", 2),
  },
  {
    ending: "a second transferred event for one call",
    events: log().start().callsOf(transferCall("t")).transferred("t").transferred("t").build(),
    expected: stopped("malformed", 4),
  },
  {
    ending: "a transferred event for a call that had a tool result",
    events: log().start().callsOf(transferCall("t")).result("t").transferred("t").build(),
    expected: stopped("malformed", 4),
  },
  {
    ending: "two transferred events in one response",
    events: log()
      .start()
      .callsOf(transferCall("t"), call("u", "transfer_to_refunds"))
      .transferred("t")
      .transferred("u", "refunds")
      .build(),
    expected: stopped("malformed", 4),
  },
  {
    ending: "a resumed with a non-increasing generation",
    events: log().start().resumed(3).user().resumed(3).build(),
    expected: stopped("malformed", 4),
  },
];

describe("classify", () => {
  it.each(resumable)("resumes a log ending in $ending", ({ events, expected }) => {
    expect(outcome(classify(events))).toEqual(expected);
  });

  it.each(notResumable)("refuses to resume a log ending in $ending", ({ events, expected }) => {
    expect(outcome(classify(events))).toEqual(expected);
  });

  it.each(malformed)("reports $ending as malformed, naming the seq", ({ events, expected }) => {
    const result = classify(events);
    expect(outcome(result)).toEqual(expected);
    const { seq } = expected as { seq: number };
    expect(result.description).toMatch(new RegExp(`^seq ${seq}: `));
  });

  it("names the calls it will run or recover in its description", () => {
    const result = classify(log().start().calls("a", "b").ran("a").started("b").build());
    expect(result.description).toContain("echo (b)");
    expect(result.description).not.toContain("echo (a)");
  });

  it.each([
    ["the only answer", log().start().rejected(1, false), "did not fit the agent's output schema, and"],
    ["the last of several", log().start().rejected(1).rejected(2, false), "output schema either, and"],
  ])("says how a run ended invalid_output after %s was rejected", (_, built, words) => {
    const result = classify(built.build());
    expect(result).toMatchObject({ resumable: false, reason: "invalid_output" });
    expect(result.description).toContain(words);
  });

  it("gives back whole calls, with their names and arguments", () => {
    const result = classify(log().start().calls("a").build());
    expect(result).toMatchObject({ unansweredToolCalls: [{ id: "a", name: "echo", arguments: "{}" }] });
  });
});
