import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeEvent } from "../../lib/core/decodeEvent.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { MessageBuilder } from "../../lib/core/messageBuilder.ts";
import {
  type ChatMessage,
  CONTINUE_RESPONSE_NOTE,
  INTERRUPTED_TOOL_RESULT,
  RETRY_RESPONSE_NOTE,
  UNDECIDED_TOOL_RESULT,
} from "../../lib/core/messages.ts";
import { anyLog, conversationLog, validLog } from "./arbitraries.ts";
import { call, log } from "./logBuilder.ts";
import { referenceMessages } from "./messagesOracle.ts";

const SETTINGS = { seed: 20261130, numRuns: 400 };

/**
 * Feed `events` to one builder one at a time, asking for the messages after each: every answer
 * must be toMessages of that prefix, and stay so while the builder goes on.
 */
function expectSameAsToMessages(events: readonly RunEvent[]): void {
  const builder = new MessageBuilder();
  const answers: ChatMessage[][] = [builder.messages()];
  for (const event of events) {
    builder.add(event);
    answers.push(builder.messages());
  }
  answers.forEach((answer, n) => {
    expect(answer, `after ${n} events`).toEqual(referenceMessages(events.slice(0, n)));
  });
}

const tool = (id: string, content: string, isError = false): ChatMessage => ({
  role: "tool",
  toolCallId: id,
  name: "echo",
  content,
  isError,
});
const assistant = (...ids: string[]): ChatMessage => ({
  role: "assistant",
  content: "",
  toolCalls: ids.map((id) => call(id)),
});

describe("MessageBuilder gives toMessages of the events added so far", () => {
  it("on any log, random or nearly correct, at every length", () => {
    fc.assert(fc.property(anyLog, expectSameAsToMessages), SETTINGS);
  });

  it("on any correct run cut off anywhere, at every length", () => {
    fc.assert(fc.property(validLog, expectSameAsToMessages), SETTINGS);
  });

  it("on logs with approvals, decisions, new messages on resume and cancels, at every length", () => {
    fc.assert(fc.property(conversationLog, expectSameAsToMessages), SETTINGS);
  });

  const V1 = new URL("../fixtures/events/v1/", import.meta.url);
  it.each(readdirSync(V1).filter((file) => file.endsWith(".json")))("on the frozen log %s", (file) => {
    const records = JSON.parse(readFileSync(new URL(file, V1), "utf8")) as unknown[];
    const events = records.map((record) => {
      const decoded = decodeEvent(record);
      if (!decoded.ok) throw new Error(decoded.problem);
      return decoded.event;
    });
    expectSameAsToMessages(events);
  });
});

describe("MessageBuilder where a later event changes the end of the list", () => {
  // Each row: a log, and the messages after it; every prefix is checked against toMessages too.
  it.each([
    {
      case: "calls without results are answered as interrupted, until their results arrive",
      events: log().start("go").calls("a", "b").build(),
      end: [
        assistant("a", "b"),
        tool("a", INTERRUPTED_TOOL_RESULT, true),
        tool("b", INTERRUPTED_TOOL_RESULT, true),
      ],
    },
    {
      case: "a result that arrives later takes its call's place; the one still open comes after it",
      events: log().start("go").calls("a", "b").started("b").result("b").build(),
      end: [assistant("a", "b"), tool("b", "result of b"), tool("a", INTERRUPTED_TOOL_RESULT, true)],
    },
    {
      case: "a call waiting for approval is undecided, until a decision makes it merely unanswered",
      events: log().start("go").approvalCalls(["a"], ["a"]).build(),
      end: [assistant("a"), tool("a", UNDECIDED_TOOL_RESULT, true)],
    },
    {
      case: "a decided call with no result yet",
      events: log().start("go").approvalCalls(["a"], ["a"]).decided("a", false).build(),
      end: [assistant("a"), tool("a", INTERRUPTED_TOOL_RESULT, true)],
    },
    {
      case: "a rejection answered with its result",
      events: log()
        .start("go")
        .approvalCalls(["a"], ["a"])
        .decided("a", false)
        .result("a", "rejected by ana", true)
        .build(),
      end: [assistant("a"), tool("a", "rejected by ana", true)],
    },
    {
      case: "a new message settles an undecided call as undecided; a later decision changes nothing",
      events: log().start("go").approvalCalls(["a"], ["a"]).user("never mind").decided("a", true).build(),
      end: [assistant("a"), tool("a", UNDECIDED_TOOL_RESULT, true), { role: "user", content: "never mind" }],
    },
    {
      case: "a resume with a message settles the open calls as interrupted; a late result is left out",
      events: log().start("go").calls("a").started("a").send(2, "and now?").result("a").build(),
      end: [assistant("a"), tool("a", INTERRUPTED_TOOL_RESULT, true), { role: "user", content: "and now?" }],
    },
    {
      case: "a resume without a message leaves the open calls open",
      events: log().start("go").calls("a").resumed(2, "recover_tools").result("a").build(),
      end: [assistant("a"), tool("a", "result of a")],
    },
    {
      case: "a cut-off response keeps its note when the retried one arrives",
      events: log().start("go").respond("Half", "interrupted").respond("Whole").build(),
      end: [
        { role: "assistant", content: "Half", toolCalls: [] },
        { role: "user", content: RETRY_RESPONSE_NOTE },
        { role: "assistant", content: "Whole", toolCalls: [] },
      ],
    },
    {
      case: "a response at the output limit keeps its note when the continuation arrives",
      events: log().start("go").respond("A long", "max_output").respond(" answer").build(),
      end: [
        { role: "assistant", content: "A long", toolCalls: [] },
        { role: "user", content: CONTINUE_RESPONSE_NOTE },
        { role: "assistant", content: " answer", toolCalls: [] },
      ],
    },
    {
      case: "a response with nothing to say still settles the open calls",
      events: log().start("go").calls("a").respond("", "interrupted").build(),
      end: [
        assistant("a"),
        tool("a", INTERRUPTED_TOOL_RESULT, true),
        { role: "user", content: RETRY_RESPONSE_NOTE },
      ],
    },
  ])("$case", ({ events, end }) => {
    expectSameAsToMessages(events);
    const builder = new MessageBuilder();
    for (const event of events) builder.add(event);
    expect(builder.messages()).toEqual([{ role: "user", content: "go" }, ...end]);
  });

  it("leaves a list it gave unchanged as it goes on", () => {
    const builder = new MessageBuilder();
    for (const event of log().start("go").calls("a").build()) builder.add(event);
    const before = builder.messages();
    const copy = structuredClone(before);
    builder.add(log().start().calls("a").result("a").build()[2]!);
    expect(before).toEqual(copy);
    expect(builder.messages().at(-1)).toEqual(tool("a", "result of a"));
  });
});
