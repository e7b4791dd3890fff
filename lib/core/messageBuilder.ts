import { keptNothing } from "./continuation.ts";
import type { ToolCall } from "./eventFields.ts";
import type { RunEvent } from "./events.ts";
import {
  type ChatMessage,
  CONTINUE_RESPONSE_NOTE,
  INTERRUPTED_TOOL_RESULT,
  LIMIT_BEFORE_ANYTHING_NOTE,
  PARTIAL_RESPONSE_NOTE,
  RETRY_RESPONSE_NOTE,
  rejectedOutputNote,
  UNDECIDED_TOOL_RESULT,
  unansweredSubagentResult,
} from "./messages.ts";
import { transferredToolResult } from "./transfers.ts";

/**
 * A run's model messages built one event at a time, for a log that grows: a process that holds a run's log folds
 * each new event in once, so building the model's messages at a step costs what is new, not
 * what the log holds. `messages()` equals `toMessages(events read so far)` after every `add`.
 *
 * Every message an event gives is final once written, except one tail: the calls of the latest
 * batch that have no result yet. toMessages answers those at the end of the log as interrupted
 * (or as undecided while they await approval, or, for a sub-agent call whose child started, as not
 * answered by that child); a later result, decision or message changes that answer. So they are not written into the list: they stay open here and `messages()` answers
 * them on top of the list, in call order, each time it is asked.
 */
export class MessageBuilder {
  /** Messages no later event can change. */
  private readonly settled: ChatMessage[] = [];
  /** The latest batch's calls without a result, in the order the response made them. */
  private open = new Map<string, ToolCall>();
  /** Calls of the latest batch still waiting for a person's decision. */
  private awaiting = new Set<string>();
  /** Sub-agent calls of the latest batch that started a child run: the child's run id by call id. */
  private children = new Map<string, string>();
  /** Text saved of a response still streaming: open like the calls, until a response or input supersedes it. */
  private partial = "";
  /** How many events were added. */
  count = 0;

  /** The messages of the events added so far: a new array, which later adds leave unchanged. */
  messages(): ChatMessage[] {
    const messages = this.settled.slice();
    for (const call of this.open.values()) messages.push(this.unanswered(call));
    if (this.partial !== "") {
      messages.push({ role: "assistant", content: this.partial, toolCalls: [] });
      messages.push({ role: "user", content: PARTIAL_RESPONSE_NOTE });
    }
    return messages;
  }

  /** Fold the next event of the log in. */
  add(event: RunEvent): void {
    this.count++;
    // What moves the conversation supersedes saved progress (as readLog's `partial`).
    if (event.type !== "response_progress" && movesConversation(event)) this.partial = "";
    switch (event.type) {
      case "run_started":
        this.settle({ role: "user", content: event.input });
        break;
      case "user_message":
        this.settle({ role: "user", content: event.text });
        break;
      case "model_response": {
        const calls = event.stop === "tool_calls" ? event.toolCalls : [];
        if (event.text.length > 0 || calls.length > 0) {
          this.settle({ role: "assistant", content: event.text, toolCalls: calls });
        } else this.closeOpenCalls();
        this.open = new Map(calls.map((call) => [call.id, call]));
        this.awaiting = new Set(event.approvals ?? []);
        this.children = new Map();
        if (event.stop === "interrupted") this.settled.push({ role: "user", content: RETRY_RESPONSE_NOTE });
        if (event.stop === "max_output") {
          const note = keptNothing(event) ? LIMIT_BEFORE_ANYTHING_NOTE : CONTINUE_RESPONSE_NOTE;
          this.settled.push({ role: "user", content: note });
        }
        break;
      }
      case "output_rejected":
        // The answer as given, then what was wrong with it, as the user side of the conversation.
        this.settle({ role: "assistant", content: event.text, toolCalls: [] });
        this.settled.push({ role: "user", content: rejectedOutputNote(event.problems) });
        break;
      case "tool_result":
        this.answer(event.callId, event.content, event.isError);
        break;
      case "transferred":
        // Answered as the call's result, so every call has its answer for the provider.
        this.answer(event.callId, transferredToolResult(event.to), false);
        break;
      case "tool_decided":
        this.awaiting.delete(event.callId);
        break;
      case "response_progress":
        this.partial += event.text;
        break;
      case "resumed":
        if (event.input !== undefined) this.settle({ role: "user", content: event.input });
        break;
      case "tool_started":
        if (event.child !== undefined && this.open.has(event.callId))
          this.children.set(event.callId, event.child);
        break;
      case "model_failed":
      case "cancelled":
      case "execution_stopped":
      case "budget_exhausted":
      case "paused":
      case "given_up":
        break;
      default: {
        const unknown: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unknown)}`);
      }
    }
  }

  /** An open call's answer, as the tool message the provider reads; none for a call not open. */
  private answer(callId: string, content: string, isError: boolean): void {
    const call = this.open.get(callId);
    if (!call) return;
    this.open.delete(callId);
    this.settled.push({ role: "tool", toolCallId: call.id, name: call.name, content, isError });
  }

  /** A new message closes the open calls first: their answers are final from here on. */
  private settle(message: ChatMessage): void {
    this.closeOpenCalls();
    this.settled.push(message);
  }

  private closeOpenCalls(): void {
    for (const call of this.open.values()) this.settled.push(this.unanswered(call));
    this.open = new Map();
  }

  /**
   * The answer toMessages gives a call with no result, as things stand now. A sub-agent call whose
   * child started was never interrupted: no process stopped, its child may go on.
   */
  private unanswered(call: ToolCall): ChatMessage {
    const child = this.children.get(call.id);
    const content =
      child !== undefined
        ? unansweredSubagentResult(child)
        : this.awaiting.has(call.id)
          ? UNDECIDED_TOOL_RESULT
          : INTERRUPTED_TOOL_RESULT;
    return { role: "tool", toolCallId: call.id, name: call.name, content, isError: true };
  }
}

/** Events after which saved progress of a response is no longer the conversation's open end. */
function movesConversation(event: RunEvent): boolean {
  switch (event.type) {
    case "user_message":
    case "model_response":
    case "model_failed":
    case "output_rejected":
      return true;
    case "resumed":
      return event.input !== undefined;
    default:
      return false;
  }
}

/**
 * The conversation a provider accepts, derived from a log. Every tool call is
 * answered before the next assistant or user message (a call the log left
 * open is answered as interrupted, or as unanswered by its child run), results that answer no call are left out,
 * and a cut-off or truncated response is followed by the note that tells the
 * model how to go on.
 */
export function toMessages(events: readonly RunEvent[]): ChatMessage[] {
  const builder = new MessageBuilder();
  for (const event of events) builder.add(event);
  return builder.messages();
}
