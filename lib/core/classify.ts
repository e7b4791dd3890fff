import type { ResumeKind, RunEvent, ToolCall } from "./events.ts";
import { assertNever, readLog, unanswered } from "./log.ts";

/** Why a log cannot be resumed as it stands. */
export type NotResumableReason =
  | "completed"
  | "refused"
  | "context_full"
  | "unknown_stop"
  | "empty"
  | "malformed";

export interface ResumePoint {
  resumable: true;
  kind: ResumeKind;
  description: string;
  /** Calls of the open batch with no result (they will be run, or answered as interrupted). */
  unansweredToolCalls: ToolCall[];
  /** Calls that started and have no result: they may have had their effect. */
  interruptedToolCalls: ToolCall[];
}

export interface NotResumable {
  resumable: false;
  reason: NotResumableReason;
  description: string;
  /** The seq the reason is about (the final answer, the malformed event …). */
  seq?: number;
}

export type Classification = ResumePoint | NotResumable;

const point = (
  kind: ResumeKind,
  description: string,
  unansweredToolCalls: ToolCall[] = [],
  interruptedToolCalls: ToolCall[] = [],
): ResumePoint => ({ resumable: true, kind, description, unansweredToolCalls, interruptedToolCalls });

const notResumable = (reason: NotResumableReason, description: string, seq?: number): NotResumable =>
  seq === undefined
    ? { resumable: false, reason, description }
    : { resumable: false, reason, description, seq };

const names = (calls: ToolCall[]) => calls.map((call) => `${call.name} (${call.id})`).join(", ");

/**
 * Say where a run stopped and what resuming it would do, from its log alone.
 * Pure: it writes nothing and calls nothing. Every caller that decides what
 * happens next (steps, resume, sweeper, API, CLI) asks this one function.
 */
export function classify(events: readonly RunEvent[]): Classification {
  if (events.length === 0) return notResumable("empty", "the run has no events");
  const facts = readLog(events);
  if (facts.problem) {
    return notResumable("malformed", `seq ${facts.problem.seq}: ${facts.problem.message}`, facts.problem.seq);
  }
  const last = facts.last!;
  switch (last.type) {
    case "run_started":
    case "user_message":
      return point("call_model", "a user message has no answer yet: call the model");
    case "model_failed":
      return point("call_model", `the last model call failed (${last.error.message}): call the model again`);
    case "model_response":
      switch (last.stop) {
        case "tool_calls":
          return point("run_tools", `tool calls never started: run ${names(last.toolCalls)}`, last.toolCalls);
        case "stop":
          return notResumable("completed", "the run ended with a final answer", last.seq);
        case "refusal":
          return notResumable(
            "refused",
            "the model refused; the same input would be refused again",
            last.seq,
          );
        case "context_full":
          return notResumable(
            "context_full",
            "the context window is full; sending the same history would fill it again",
            last.seq,
          );
        case "max_output":
          return point(
            "continue_response",
            "the response hit the output limit: ask the model to continue it",
          );
        case "interrupted":
          return point(
            "retry_response",
            "the response was cut off by a failure: ask the model to start it again",
          );
        default:
          return notResumable(
            "unknown_stop",
            `the response stopped for an unknown reason: ${last.stop}`,
            last.seq,
          );
      }
    case "tool_started":
    case "tool_result": {
      const batch = facts.batch!;
      const open = unanswered(batch);
      if (open.length === 0) return point("call_model", "every tool call has its result: call the model");
      const interrupted = open.filter((call) => batch.started.has(call.id));
      if (interrupted.length > 0) {
        return point(
          "recover_tools",
          `tool calls started and have no result: answer ${names(interrupted)} as interrupted, then continue`,
          open,
          interrupted,
        );
      }
      return point("run_tools", `tool calls never started: run ${names(open)}`, open);
    }
    case "resumed":
      // readLog never reports a marker as the last conversational event.
      throw new Error("unreachable: resumed is not conversational");
    default:
      return assertNever(last);
  }
}
