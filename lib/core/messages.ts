import type { RunEvent, ToolCall } from "./events.ts";

/** A provider-neutral chat message; adapters translate these to their wire format. */
export type ChatMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; toolCalls: ToolCall[] }
  | { role: "tool"; toolCallId: string; name: string; content: string; isError: boolean };

/** What the model is told about a call whose process stopped while it ran. */
export const INTERRUPTED_TOOL_RESULT =
  "This tool call was interrupted: the process running it stopped before it reported a result. " +
  "It may or may not have finished, and anything it changes may or may not have changed. " +
  "Check the current state before calling it again.";

/** What the model is told about a call still waiting for approval when the user moved on. */
export const UNDECIDED_TOOL_RESULT =
  "This tool call was not run: it was waiting for a person's approval when the user sent a new message instead.";

/** What the model is told about a call a person rejected. */
export function rejectedToolResult(by: string, reason?: string): string {
  return `This tool call was not run: ${by} rejected it${reason ? `: ${reason}` : "."}`;
}

/** Told after a response that a failure cut off. */
export const RETRY_RESPONSE_NOTE =
  "[runlog] Your previous response was cut off by a failure before it was finished. " +
  "Start that response again from the beginning.";

/** Told after a response that hit the output limit. */
export const CONTINUE_RESPONSE_NOTE =
  "[runlog] Your previous response reached the output limit. " +
  "Continue exactly where it stopped, without repeating anything.";

/**
 * The conversation a provider accepts, derived from a log. Every tool call is
 * answered before the next assistant or user message (a call the log left
 * open is answered as interrupted), results that answer no call are left out,
 * and a cut-off or truncated response is followed by the note that tells the
 * model how to go on. The reference for MessageBuilder (messageBuilder.ts), which
 * builds the same list one event at a time for a log that grows.
 */
export function toMessages(events: readonly RunEvent[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let open = new Map<string, ToolCall>();
  let awaiting = new Set<string>();

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
        if (event.stop === "max_output") messages.push({ role: "user", content: CONTINUE_RESPONSE_NOTE });
        break;
      }
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
        break;
      default: {
        const unknown: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unknown)}`);
      }
    }
  }
  closeOpenCalls();
  return messages;
}

/** The run's final answer, if its last response is one. */
export function finalOutput(events: readonly RunEvent[]): string | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.type === "model_response") return event.stop === "stop" ? event.text : null;
    // Anything newer than the last answer that moves the conversation means it is not the output.
    if (event.type === "user_message" || event.type === "model_failed") return null;
    if (event.type === "resumed" && event.input !== undefined) return null;
  }
  return null;
}
