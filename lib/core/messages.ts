import { continuedText } from "./continuation.ts";
import { APPROVAL_EXPIRED, DECIDED_BY_TIMEOUT } from "./eventConstants.ts";
import type { ToolCall } from "./eventFields.ts";
import type { RunEvent } from "./events.ts";
import type { JsonValue } from "./structuredOutput.ts";

/** A provider-neutral chat message; adapters translate these to their wire format. */
export type ChatMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; toolCalls: ToolCall[] }
  | { role: "tool"; toolCallId: string; name: string; content: string; isError: boolean };

/**
 * What the model is told about a call that was not seen to finish, after saying why: the one
 * wording of "this may or may not have happened", for interruptions, timeouts and stops alike.
 */
function unfinishedToolResult(why: string): string {
  return (
    `${why} ` +
    "It may or may not have finished, and anything it changes may or may not have changed. " +
    "Check the current state before calling it again."
  );
}

/** What the model is told about a call whose process stopped while it ran. */
export const INTERRUPTED_TOOL_RESULT = unfinishedToolResult(
  "This tool call was interrupted: the process running it stopped before it reported a result.",
);

/** What the model is told about a call that passed its timeout: it was asked to stop, which it may ignore. */
export function timedOutToolResult(name: string, timeoutMs: number): string {
  return unfinishedToolResult(
    `This tool call timed out: ${name} reported no result within ${timeoutMs} ms and was asked to stop.`,
  );
}

/** What a fork's model is told of a sub-agent call under way where the fork was taken: the child is the parent's. */
export function forkedSubagentResult(parentRunId: string, atSeq: number, child: string): string {
  return unfinishedToolResult(
    `This sub-agent call was under way when this run was forked from run ${parentRunId} at seq ${atSeq}: ` +
      `its child run ${child} belongs to run ${parentRunId}, and its answer does not come here.`,
  );
}

/**
 * What the model is told of a sub-agent call the conversation went on without, its child run not
 * having answered (a message sent to a run waiting for its sub-agents, before such messages were
 * refused): no process stopped, the child may have gone on, and its answer does not come here.
 */
export function unansweredSubagentResult(child: string): string {
  return unfinishedToolResult(
    `This sub-agent call has no result: the conversation went on before its child run ${child} answered, ` +
      "and that run's answer does not come here.",
  );
}

/** What the model is told about a call that was asked to stop because its run was stopped. */
export function stoppedToolResult(name: string, reason: string): string {
  return unfinishedToolResult(
    `This tool call was stopped: ${name} was asked to stop before it reported a result (${reason}).`,
  );
}

/** What the model is told about a call still waiting for approval when the user moved on. */
export const UNDECIDED_TOOL_RESULT =
  "This tool call was not run: it was waiting for a person's approval when the user sent a new message instead.";

/** What the model is told about a call a person rejected. */
export function rejectedToolResult(by: string, reason?: string): string {
  if (by === DECIDED_BY_TIMEOUT)
    return `This tool call was not run: it was rejected: ${reason ?? APPROVAL_EXPIRED}.`;
  return `This tool call was not run: ${by} rejected it${reason ? `: ${reason}` : "."}`;
}

/** Told after a response that a failure cut off. */
export const RETRY_RESPONSE_NOTE =
  "[runlog] Your previous response was cut off by a failure before it was finished. " +
  "Start that response again from the beginning.";

/** Told after a response that hit the output limit before anything of it could be kept (continuation.ts keptNothing). */
export const LIMIT_BEFORE_ANYTHING_NOTE =
  "[runlog] Your previous response reached the output limit before any of it could be kept " +
  "(no text, and no tool call whole). Start that response again, shorter: keep each tool call's " +
  "arguments, and any thinking before the answer, well within the limit.";

/** Told after a response that hit the output limit. */
export const CONTINUE_RESPONSE_NOTE =
  "[runlog] Your previous response reached the output limit. " +
  "Continue exactly where it stopped, without repeating anything.";

/** Told after the saved text of a response its process died streaming. */
export const PARTIAL_RESPONSE_NOTE =
  "[runlog] Your previous response was cut off while it streamed; the text above is what was saved of it. " +
  "Continue exactly where it stopped, without repeating anything.";

/** Told after a final answer the agent's output schema rejected: what was wrong, and to answer again. */
export function rejectedOutputNote(problems: string): string {
  return (
    "[runlog] Your final answer was not accepted: it must be JSON that fits the output schema you were given. " +
    `Problems: ${problems}. Answer again with only that JSON.`
  );
}

/**
 * The run's final answer, if its last response is one: its text (after the text of the responses
 * that hit the output limit and that it continues, lib/core/continuation.ts), or the value an
 * agent's output schema accepted from it (its `output`).
 */
export function finalOutput(events: readonly RunEvent[]): JsonValue | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.type === "model_response") {
      if (event.stop !== "stop") return null;
      return event.output === undefined ? continuedText(events, i) + event.text : event.output;
    }
    // Anything newer than the last answer that moves the conversation means it is not the output.
    if (event.type === "user_message" || event.type === "model_failed") return null;
    if (event.type === "output_rejected") return null;
    if (event.type === "resumed" && event.input !== undefined) return null;
  }
  return null;
}
