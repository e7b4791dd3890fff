import type { ChatMessage } from "../../lib/core/messages.ts";

/**
 * Why a provider would reject this history, or null if it would accept it:
 * every assistant message with tool calls is followed, before any other
 * message, by exactly one tool message per call; no tool message appears
 * anywhere else; no assistant message is empty.
 */
export function historyProblem(messages: readonly ChatMessage[]): string | null {
  let i = 0;
  while (i < messages.length) {
    const message = messages[i]!;
    if (message.role === "tool")
      return `message ${i}: a tool message (${message.toolCallId}) answers no open call`;
    i++;
    if (message.role !== "assistant") continue;
    if (message.content.length === 0 && message.toolCalls.length === 0) {
      return `message ${i - 1}: an empty assistant message`;
    }
    const expected = new Set(message.toolCalls.map((call) => call.id));
    if (expected.size !== message.toolCalls.length) return `message ${i - 1}: two tool calls share an id`;
    for (let answered = 0; answered < message.toolCalls.length; answered++, i++) {
      const next = messages[i];
      if (next?.role !== "tool")
        return `message ${i}: expected a tool message for ${[...expected].join(", ")}`;
      if (!expected.delete(next.toolCallId)) {
        return `message ${i}: tool message ${next.toolCallId} answers no open call of message`;
      }
    }
  }
  return null;
}

/** Whether a provider would accept this history (see `historyProblem`). */
export const isValidHistory = (messages: readonly ChatMessage[]): boolean =>
  historyProblem(messages) === null;
