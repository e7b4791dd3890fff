import { describe, expect, it } from "vitest";
import { toMessages } from "../../lib/core/messageBuilder.ts";
import type { ChatMessage } from "../../lib/core/messages.ts";
import {
  CONTINUE_RESPONSE_NOTE,
  finalOutput,
  INTERRUPTED_TOOL_RESULT,
  LIMIT_BEFORE_ANYTHING_NOTE,
  RETRY_RESPONSE_NOTE,
} from "../../lib/core/messages.ts";
import { historyProblem } from "./history.ts";
import { call, log } from "./logBuilder.ts";

const tool = (id: string, content: string, isError = false): ChatMessage => ({
  role: "tool",
  toolCallId: id,
  name: "echo",
  content,
  isError,
});

describe("toMessages", () => {
  it("turns a whole run into user, assistant and tool messages in log order", () => {
    const events = log().start("plan").calls("a", "b").ran("b", "a").respond("Done").user("thanks").build();
    expect(toMessages(events)).toEqual([
      { role: "user", content: "plan" },
      { role: "assistant", content: "", toolCalls: [call("a"), call("b")] },
      tool("b", "result of b"),
      tool("a", "result of a"),
      { role: "assistant", content: "Done", toolCalls: [] },
      { role: "user", content: "thanks" },
    ]);
  });

  it("answers a call left without a result as interrupted, keeping the results that arrived", () => {
    const events = log().start().calls("a", "b", "c").ran("a").started("b").build();
    const messages = toMessages(events);
    expect(messages.slice(2)).toEqual([
      tool("a", "result of a"),
      tool("b", INTERRUPTED_TOOL_RESULT, true),
      tool("c", INTERRUPTED_TOOL_RESULT, true),
    ]);
    expect(historyProblem(messages)).toBeNull();
  });

  it("answers open calls before the next message even in a log that moved on without them", () => {
    const events = log().start().calls("a").user("hurry").build();
    const messages = toMessages(events);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(historyProblem(messages)).toBeNull();
  });

  it("keeps a recorded error result as an error", () => {
    const events = log().start().calls("a").started("a").result("a", "boom", true).build();
    expect(toMessages(events)[2]).toEqual(tool("a", "boom", true));
  });

  it("drops results that answer no call, a second result and results for a closed batch", () => {
    const events = log()
      .start()
      .result("ghost")
      .calls("a")
      .result("a", "first")
      .result("a", "second")
      .respond("Done")
      .result("a", "late")
      .build();
    const messages = toMessages(events);
    const tools = messages.filter((m) => m.role === "tool");
    expect(tools).toEqual([tool("a", "first")]);
    expect(historyProblem(messages)).toBeNull();
  });

  it("keeps a cut-off response and tells the model to start it again", () => {
    const events = log().start().respond("Half an ans", "interrupted").build();
    expect(toMessages(events).slice(1)).toEqual([
      { role: "assistant", content: "Half an ans", toolCalls: [] },
      { role: "user", content: RETRY_RESPONSE_NOTE },
    ]);
  });

  it("keeps a response that hit the output limit and tells the model to continue it", () => {
    const events = log().start().respond("A long answ", "max_output").build();
    expect(toMessages(events).slice(1)).toEqual([
      { role: "assistant", content: "A long answ", toolCalls: [] },
      { role: "user", content: CONTINUE_RESPONSE_NOTE },
    ]);
  });

  it("asks for a response again, not to continue it, when the output limit left nothing of it", () => {
    const events = log().start().respond("", "max_output").respond("Done", "stop").build();
    expect(toMessages(events.slice(0, 2)).slice(1)).toEqual([
      { role: "user", content: LIMIT_BEFORE_ANYTHING_NOTE },
    ]);
    // The answer is the response that followed, alone: nothing was kept to continue.
    expect(finalOutput(events)).toBe("Done");
  });

  it("sends no empty assistant message for a response cut off before any text", () => {
    const messages = toMessages(log().start().respond("", "interrupted").build());
    expect(messages).toEqual([
      { role: "user", content: "hello" },
      { role: "user", content: RETRY_RESPONSE_NOTE },
    ]);
  });

  it("leaves out tool calls of a response that did not stop for them", () => {
    const events = log()
      .start()
      .add({ type: "model_response", text: "Done", toolCalls: [call("a")], stop: "stop" })
      .build();
    expect(toMessages(events)[1]).toEqual({ role: "assistant", content: "Done", toolCalls: [] });
  });

  it("says nothing for failures, tool starts and resume markers", () => {
    const events = log().start().failed().resumed(2).calls("a").started("a").result("a").build();
    expect(toMessages(events).map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("gives no messages for no events", () => {
    expect(toMessages([])).toEqual([]);
  });
});

describe("finalOutput", () => {
  it.each([
    {
      ending: "a final answer",
      events: log().start().calls("a").ran("a").respond("Done").build(),
      out: "Done",
    },
    {
      ending: "a final answer and a marker",
      events: log().start().respond("Done").resumed(2).build(),
      out: "Done",
    },
    {
      ending: "a question after the answer",
      events: log().start().respond("Done").user().build(),
      out: null,
    },
    { ending: "tool calls", events: log().start().calls("a").ran("a").build(), out: null },
    { ending: "a truncated response", events: log().start().respond("Do", "max_output").build(), out: null },
    { ending: "a refusal", events: log().start().respond("No", "refusal").build(), out: null },
    { ending: "the first message", events: log().start().build(), out: null },
    { ending: "nothing", events: [], out: null },
  ])("is $out for a log ending in $ending", ({ events, out }) => {
    expect(finalOutput(events)).toBe(out);
  });
});
