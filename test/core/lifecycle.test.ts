import { describe, expect, it } from "vitest";
import { type Classification, classify } from "../../lib/core/classify.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { toMessages } from "../../lib/core/messageBuilder.ts";
import {
  INTERRUPTED_TOOL_RESULT,
  rejectedToolResult,
  UNDECIDED_TOOL_RESULT,
} from "../../lib/core/messages.ts";
import { restingStatus } from "../../lib/core/status.ts";
import { historyProblem } from "./history.ts";
import { log } from "./logBuilder.ts";

const ids = (calls: { id: string }[] | undefined) => (calls ?? []).map((c) => c.id);
function brief(c: Classification) {
  return c.resumable
    ? { kind: c.kind, unanswered: ids(c.unansweredToolCalls), interrupted: ids(c.interruptedToolCalls) }
    : { reason: c.reason, waiting: ids(c.waitingToolCalls), seq: c.seq };
}

describe("approval, cancel and new messages in the resume table", () => {
  it.each<[string, RunEvent[], ReturnType<typeof brief>]>([
    [
      "an approval call and an ordinary call: run the ordinary one first",
      log().start().approvalCalls(["a", "b"], ["a"]).build(),
      { kind: "run_tools", unanswered: ["b"], interrupted: [] },
    ],
    [
      "the ordinary call answered, the other waiting: awaiting_approval naming it",
      log().start().approvalCalls(["a", "b"], ["a"]).ran("b").build(),
      { reason: "awaiting_approval", waiting: ["a"], seq: 2 },
    ],
    [
      "every waiting call decided: run the approved and the rejected",
      log()
        .start()
        .approvalCalls(["a", "b", "c"], ["a", "b"])
        .ran("c")
        .decided("a", true)
        .decided("b", false)
        .build(),
      { kind: "run_tools", unanswered: ["a", "b"], interrupted: [] },
    ],
    [
      "one approved, the other still waiting: nothing runs until the last is decided",
      log().start().approvalCalls(["a", "b"], ["a", "b"]).decided("a", true).build(),
      { reason: "awaiting_approval", waiting: ["b"], seq: 2 },
    ],
    [
      "a call needing no approval beside a waiting one: it runs at once",
      log().start().approvalCalls(["a", "b"], ["b"]).build(),
      { kind: "run_tools", unanswered: ["a"], interrupted: [] },
    ],
    [
      "an interrupted call beside a waiting one: recover it, leave the waiting one waiting",
      log().start().approvalCalls(["a", "b"], ["a"]).started("b").build(),
      { kind: "recover_tools", unanswered: ["b"], interrupted: ["b"] },
    ],
    [
      "a cancel",
      log().start().calls("a").started("a").cancelled().build(),
      { reason: "cancelled", waiting: [], seq: 4 },
    ],
    [
      "a new message after a final answer",
      log().start().respond("Done").send(2).build(),
      { kind: "call_model", unanswered: [], interrupted: [] },
    ],
    [
      "a new message that closed calls left open by a crash",
      log().start().calls("a", "b").started("a").result("a").started("b").send(2).build(),
      { kind: "call_model", unanswered: [], interrupted: [] },
    ],
  ])("%s", (_, events, expected) => {
    expect(brief(classify(events))).toEqual(expected);
  });

  it.each<[string, RunEvent[], number]>([
    [
      "a decision for a call that needs none",
      log().start().approvalCalls(["a", "b"], ["a"]).decided("b", true).build(),
      3,
    ],
    [
      "a second decision",
      log().start().approvalCalls(["a"], ["a"]).decided("a", true).decided("a", false).build(),
      4,
    ],
    ["a start of a call nobody approved", log().start().approvalCalls(["a"], ["a"]).started("a").build(), 3],
    ["an event after a cancel", log().start().cancelled().respond("late").build(), 3],
    ["a result for a call a new message closed", log().start().calls("a").send(2).result("a").build(), 4],
  ])("%s is malformed at its seq", (_, events, seq) => {
    expect(classify(events)).toMatchObject({ resumable: false, reason: "malformed", seq });
  });

  it("rests as paused while waiting and cancelled after a cancel", () => {
    const waiting = log().start().approvalCalls(["a"], ["a"]).build();
    expect(restingStatus(waiting, classify(waiting))).toBe("paused");
    const cancelled = log().start().cancelled().build();
    expect(restingStatus(cancelled, classify(cancelled))).toBe("cancelled");
  });
});

describe("the reducer with new messages and decisions", () => {
  it("closes open calls before a new message: results kept, the rest interrupted or not run", () => {
    const events = log()
      .start()
      .approvalCalls(["a", "b", "c"], ["c"])
      .ran("a")
      .started("b")
      .send(2, "stop that")
      .build();
    const messages = toMessages(events);
    expect(historyProblem(messages)).toBeNull();
    const tools = messages.filter((m) => m.role === "tool");
    expect(tools.map((m) => [m.toolCallId, m.content])).toEqual([
      ["a", "result of a"],
      ["b", INTERRUPTED_TOOL_RESULT],
      ["c", UNDECIDED_TOOL_RESULT],
    ]);
    expect(messages.at(-1)).toEqual({ role: "user", content: "stop that" });
  });

  it("says who rejected a call and why", () => {
    expect(rejectedToolResult("ana", "too expensive")).toBe(
      "This tool call was not run: ana rejected it: too expensive",
    );
  });
});
