import { describe, expect, it } from "vitest";
import { classify } from "../../lib/core/classify.ts";
import { decodeEvent } from "../../lib/core/decodeEvent.ts";
import { readLog } from "../../lib/core/logReader.ts";
import { toMessages } from "../../lib/core/messageBuilder.ts";
import { PARTIAL_RESPONSE_NOTE } from "../../lib/core/messages.ts";
import { restingStatus } from "../../lib/core/status.ts";
import { type LogBuilder, log } from "./logBuilder.ts";
import { referenceMessages } from "./messagesOracle.ts";

const progress = (builder: LogBuilder, ...texts: string[]) => {
  for (const text of texts) builder.add({ type: "response_progress", text });
  return builder;
};

describe("text saved while a response streams", () => {
  it("folds into one partial text, joined in order", () => {
    const events = progress(log().start(), "Once ", "upon ", "a time").build();
    expect(readLog(events).partial).toEqual({ text: "Once upon a time", seq: 4 });
    expect(readLog(events).modelTurns).toBe(0);
  });

  it.each([
    ["the response that completes it", (b: LogBuilder) => b.respond("Once upon a time.")],
    ["a recorded model failure", (b: LogBuilder) => b.failed()],
    ["a new user message", (b: LogBuilder) => b.user("never mind")],
  ])("is superseded by %s: no text is doubled", (_, then) => {
    const events = then(progress(log().start(), "Once ", "upon")).build();
    expect(readLog(events).partial).toBeUndefined();
    const messages = toMessages(events);
    expect(messages.filter((m) => m.role === "assistant" && m.content.startsWith("Once "))).toHaveLength(
      events.some((e) => e.type === "model_response") ? 1 : 0,
    );
    expect(JSON.stringify(messages)).not.toContain(PARTIAL_RESPONSE_NOTE);
    expect(messages).toEqual(referenceMessages(events));
  });

  it("survives a resumed marker: the new generation continues it", () => {
    const events = progress(progress(log().start(), "Once ").resumed(2), "upon").build();
    expect(readLog(events).partial?.text).toBe("Once upon");
  });

  it("ends the messages with the saved text and the note to continue it", () => {
    const events = progress(log().start("Tell me a story"), "Once ", "upon").build();
    expect(toMessages(events)).toEqual([
      { role: "user", content: "Tell me a story" },
      { role: "assistant", content: "Once upon", toolCalls: [] },
      { role: "user", content: PARTIAL_RESPONSE_NOTE },
    ]);
    expect(toMessages(events)).toEqual(referenceMessages(events));
  });

  it.each([
    ["after the first message", progress(log().start(), "Once").build()],
    ["after tool results", progress(log().start().calls("a").ran("a"), "The result").build()],
    ["after a failed call", progress(log().start().failed(), "Once").build()],
    ["after an output limit", progress(log().start().respond("Once", "max_output"), " upon").build()],
    ["after a resume", progress(log().start().resumed(2), "Once").build()],
  ])("a log ending in saved text %s resumes as continue_partial", (_, events) => {
    expect(classify(events)).toMatchObject({ resumable: true, kind: "continue_partial" });
  });

  it.each([
    ["after the first message", progress(log().start(), "Once").build()],
    ["after a failed call (a later attempt died)", progress(log().start().failed(), "Once").build()],
  ])("a run resting on saved text %s is interrupted", (_, events) => {
    expect(restingStatus(events, classify(events))).toBe("interrupted");
  });

  it("the classification names how much was saved", () => {
    const point = classify(progress(log().start(), "12345", "678").build());
    expect(point.description).toContain("8 characters saved");
  });

  it("saved text while tool calls are unanswered is a malformed log", () => {
    const events = progress(log().start().calls("a"), "Once").build();
    expect(classify(events)).toMatchObject({ resumable: false, reason: "malformed", seq: 3 });
  });

  it("a completed response after saved text is a final answer, not a partial one", () => {
    const events = progress(log().start(), "Once").respond("Once upon a time.").build();
    expect(classify(events)).toMatchObject({ resumable: false, reason: "completed" });
  });

  it("an empty progress event is refused by the schema, naming the field", () => {
    const raw = { v: 1, seq: 2, at: "2025-01-01T00:00:00.000Z", type: "response_progress", text: "" };
    expect(decodeEvent(raw)).toMatchObject({ ok: false, problem: expect.stringContaining("text") });
  });
});
