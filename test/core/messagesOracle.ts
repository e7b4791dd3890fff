import type { ToolCall } from "../../lib/core/eventFields.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import {
  type ChatMessage,
  CONTINUE_RESPONSE_NOTE,
  INTERRUPTED_TOOL_RESULT,
  LIMIT_BEFORE_ANYTHING_NOTE,
  PARTIAL_RESPONSE_NOTE,
  RETRY_RESPONSE_NOTE,
  rejectedOutputNote,
  UNDECIDED_TOOL_RESULT,
} from "../../lib/core/messages.ts";
import { transferredToolResult } from "../../lib/core/transfers.ts";

/**
 * The conversation a provider accepts, derived from a log. Every tool call is
 * answered before the next assistant or user message (a call the log left
 * open is answered as interrupted), results that answer no call are left out,
 * and a cut-off or truncated response is followed by the note that tells the
 * model how to go on.
 *
 * The oracle for lib/core/messageBuilder.ts: the whole log folded in one loop, written
 * independently of the builder, which the shipped code uses one event at a time.
 */
export function referenceMessages(events: readonly RunEvent[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let open = new Map<string, ToolCall>();
  let awaiting = new Set<string>();
  // Text saved while a response streamed: it ends the conversation unless something supersedes it.
  let partial = "";

  const closeOpenCalls = () => {
    for (const call of open.values()) {
      const content = awaiting.has(call.id) ? UNDECIDED_TOOL_RESULT : INTERRUPTED_TOOL_RESULT;
      messages.push({
        role: "tool",
        toolCallId: call.id,
        name: call.name,
        content,
        isError: true,
      });
    }
    open = new Map();
  };

  for (const event of events) {
    if (["user_message", "model_response", "model_failed", "output_rejected"].includes(event.type))
      partial = "";
    if (event.type === "resumed" && event.input !== undefined) partial = "";
    switch (event.type) {
      case "run_started":
        closeOpenCalls();
        messages.push({ role: "user", content: event.input });
        break;
      case "user_message":
        closeOpenCalls();
        messages.push({ role: "user", content: event.text });
        break;
      case "model_response": {
        closeOpenCalls();
        const calls = event.stop === "tool_calls" ? event.toolCalls : [];
        if (event.text.length > 0 || calls.length > 0) {
          messages.push({ role: "assistant", content: event.text, toolCalls: calls });
        }
        open = new Map(calls.map((call) => [call.id, call]));
        awaiting = new Set(event.approvals ?? []);
        if (event.stop === "interrupted") messages.push({ role: "user", content: RETRY_RESPONSE_NOTE });
        // Nothing kept (no text, no call): nothing to continue, so the response is started again.
        if (event.stop === "max_output") {
          const keptNothing = event.text === "" && event.toolCalls.length === 0;
          messages.push({
            role: "user",
            content: keptNothing ? LIMIT_BEFORE_ANYTHING_NOTE : CONTINUE_RESPONSE_NOTE,
          });
        }
        break;
      }
      case "output_rejected":
        closeOpenCalls();
        messages.push({ role: "assistant", content: event.text, toolCalls: [] });
        messages.push({ role: "user", content: rejectedOutputNote(event.problems) });
        break;
      case "tool_result": {
        const call = open.get(event.callId);
        if (!call) break;
        open.delete(event.callId);
        messages.push({
          role: "tool",
          toolCallId: call.id,
          name: call.name,
          content: event.content,
          isError: event.isError,
        });
        break;
      }
      case "transferred": {
        const call = open.get(event.callId);
        if (!call) break;
        open.delete(event.callId);
        messages.push({
          role: "tool",
          toolCallId: call.id,
          name: call.name,
          content: transferredToolResult(event.to),
          isError: false,
        });
        break;
      }
      case "tool_decided":
        awaiting.delete(event.callId);
        break;
      case "resumed":
        if (event.input === undefined) break;
        closeOpenCalls();
        messages.push({ role: "user", content: event.input });
        break;
      case "tool_started":
      case "model_failed":
      case "cancelled":
      case "execution_stopped":
      case "budget_exhausted":
      case "paused":
      case "given_up":
        break;
      case "response_progress":
        partial += event.text;
        break;
      default: {
        const unknown: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unknown)}`);
      }
    }
  }
  closeOpenCalls();
  if (partial !== "") {
    messages.push({ role: "assistant", content: partial, toolCalls: [] });
    messages.push({ role: "user", content: PARTIAL_RESPONSE_NOTE });
  }
  return messages;
}
