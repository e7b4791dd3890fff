import { assertNever } from "./assertNever.ts";
import type { RunEvent } from "./events.ts";

/*
 * A response that hit the output limit (`stop: "max_output"`) is continued by the next model call
 * (continue_response), which may hit the limit again. Each `model_response` records the text its
 * own call gave, which is what the model is shown of it; the answer is those texts joined: the
 * final response's (or a rejected one's) after every response it continues. Derived from the
 * events, so a log written before this was joined reads the same.
 */

/** How an event older than a response stands to it, read backwards from it. */
type Role = "part" | "passed" | "end";

/**
 * A response that hit the output limit before anything of it could be kept: no text, its tool
 * call cut off mid-arguments (an adapter keeps no partial call). Nothing to continue: the next
 * call starts that response again (retry_response), and the answer leaves it out.
 */
export function keptNothing(event: RunEvent): boolean {
  return (
    event.type === "model_response" &&
    event.stop === "max_output" &&
    event.text === "" &&
    event.toolCalls.length === 0
  );
}

function roleOf(event: RunEvent): Role {
  switch (event.type) {
    case "model_response":
      if (keptNothing(event)) return "passed";
      if (event.stop === "max_output") return "part";
      // A response a failure cut off is started again by the next call: the answer leaves it out.
      return event.stop === "interrupted" ? "passed" : "end";
    case "resumed":
      return event.input === undefined ? "passed" : "end";
    // A failed call, saved progress superseded by a response, and markers say nothing of the text.
    case "model_failed":
    case "response_progress":
    case "execution_stopped":
    case "budget_exhausted":
    case "paused":
    case "given_up":
      return "passed";
    case "run_started":
    case "user_message":
    case "output_rejected":
    case "tool_started":
    case "tool_result":
    case "tool_decided":
    case "transferred":
    case "cancelled":
      return "end";
    default:
      return assertNever(event);
  }
}

/** Whether `event` is an answer whose text may end a continued response (a final or a rejected one). */
export function isAnswer(event: RunEvent): boolean {
  return (event.type === "model_response" && event.stop === "stop") || event.type === "output_rejected";
}

/**
 * The text of the responses that hit the output limit and that the response at `index` continues
 * (`index` = `events.length`: the next response), joined in order; "" when it continues none.
 */
export function continuedText(events: readonly RunEvent[], index: number): string {
  let text = "";
  for (let i = index - 1; i >= 0; i--) {
    const event = events[i]!;
    const role = roleOf(event);
    if (role === "end") break;
    if (role === "part" && event.type === "model_response") text = event.text + text;
  }
  return text;
}

/** The index of the oldest response the response at `index` continues; `index` when it continues none. */
export function continuationStart(events: readonly RunEvent[], index: number): number {
  let start = index;
  for (let i = index - 1; i >= 0; i--) {
    const role = roleOf(events[i]!);
    if (role === "end") break;
    if (role === "part") start = i;
  }
  return start;
}

/**
 * For reading a log backwards from an answer (newest first, the answer not included): false while
 * `event` may still be part of what the answer continues, true at the first event that ends it.
 */
export function endsContinuation(event: RunEvent): boolean {
  return roleOf(event) === "end";
}

/** Whether `event`, read backwards from an answer, is a response the answer continues. */
export function isContinuedPart(event: RunEvent): boolean {
  return roleOf(event) === "part";
}
