import { assertNever } from "./assertNever.ts";
import { keptNothing } from "./continuation.ts";
import type { ResumeKind, ToolCall } from "./eventFields.ts";
import type { RunEvent, Transferred } from "./events.ts";
import { isCleared, type LogFacts, type LogStart, type ToolBatch, unanswered } from "./log.ts";
import { readLog } from "./logReader.ts";

/** Why a log cannot be resumed as it stands. */
export type NotResumableReason =
  | "completed"
  | "refused"
  | "context_full"
  | "unknown_stop"
  | "empty"
  | "malformed"
  | "awaiting_approval"
  | "awaiting_children"
  | "cancelled"
  | "budget_exhausted"
  | "invalid_output";

export interface ResumePoint {
  resumable: true;
  kind: ResumeKind;
  description: string;
  /** Calls of the open batch that resuming answers: run them, or answer them as interrupted. */
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
  /** With `awaiting_approval`: the calls waiting for a person's decision. */
  waitingToolCalls?: ToolCall[];
  /** With `awaiting_children`: the sub-agent calls waiting for their child runs to end, and the children. */
  waitingChildren?: { call: ToolCall; childRunId: string }[];
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
export function classify(events: readonly RunEvent[], start?: LogStart): Classification {
  if (events.length === 0) return notResumable("empty", "the run has no events");
  return classifyFacts(readLog(events, start));
}

/** classify, from facts already read (of a whole log or of a tail). */
export function classifyFacts(facts: LogFacts): Classification {
  const classification = classifyTail(facts);
  if (!facts.stopped || !classification.resumable) return classification;
  // Stopped outside runlog: resumable as it stands, but only by a person (sweep.ts, redrive.ts).
  const description = `${facts.stopped.reason}; a person's resume goes on: ${classification.description}`;
  return { ...classification, description };
}

function classifyTail(facts: LogFacts): Classification {
  if (facts.problem) {
    return notResumable("malformed", `seq ${facts.problem.seq}: ${facts.problem.message}`, facts.problem.seq);
  }
  if (facts.cancelled) {
    return notResumable("cancelled", `the run was cancelled by ${facts.cancelled.by}`, facts.cancelled.seq);
  }
  if (facts.exhausted) {
    const { limit, limits, used } = facts.exhausted;
    return notResumable(
      "budget_exhausted",
      `the run reached its ${limit} limit of ${limits[limit]} (${used.turns} turns, ${used.tokens} tokens${used.costUsd === undefined ? "" : `, $${used.costUsd.toFixed(4)}`}): resume it with that limit raised`,
      facts.exhausted.seq,
    );
  }
  if (facts.partial) {
    return point(
      "continue_partial",
      `a response was cut off while streaming, ${facts.partial.text.length} characters saved: ask the model to continue from them`,
    );
  }
  const last = facts.last!;
  switch (last.type) {
    case "run_started":
    case "user_message":
      return point("call_model", "a user message has no answer yet: call the model");
    case "resumed":
      return point("call_model", "a new user message has no answer yet: call the model");
    case "model_failed":
      return point("call_model", `the last model call failed (${last.error.message}): call the model again`);
    case "output_rejected":
      return last.retry
        ? point(
            "call_model",
            `final answer ${last.attempt} did not fit the agent's output schema: call the model again with the problems`,
          )
        : notResumable(
            "invalid_output",
            `final answer ${last.attempt} did not fit the agent's output schema${last.attempt > 1 ? " either" : ""}, and no try is left: ${last.problems}`,
            last.seq,
          );
    case "model_response":
      switch (last.stop) {
        case "tool_calls":
          return classifyBatch(facts.batch!);
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
          return keptNothing(last)
            ? point(
                "retry_response",
                "the response hit the output limit before anything of it could be kept (no text, no whole tool call): ask the model to start it again, shorter",
              )
            : point("continue_response", "the response hit the output limit: ask the model to continue it");
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
    case "tool_result":
    case "tool_decided":
      return classifyBatch(facts.batch!, facts.transferred);
    case "transferred":
      return classifyBatch(facts.batch!, last);
    case "cancelled":
    case "budget_exhausted":
      throw new Error(`unreachable: ${last.type} is handled before the tail`);
    case "execution_stopped":
    case "paused":
    case "given_up":
    case "response_progress":
      throw new Error(`unreachable: ${last.type} is a marker, never the last event that moves the run`);
    default:
      return assertNever(last);
  }
}

/** The open tool batch: recover what was interrupted, run what may run, then wait for decisions. */
function classifyBatch(batch: ToolBatch, transfer?: Transferred): Classification {
  const all = unanswered(batch);
  if (all.length === 0) {
    // A transfer answered in this batch: the next model call is the new agent's.
    return transfer && batch.results.get(transfer.callId) === transfer
      ? point(
          "call_model",
          `every tool call has its result and the run was transferred to ${transfer.to}: call the model as ${transfer.to}`,
        )
      : point("call_model", "every tool call has its result: call the model");
  }
  // A sub-agent call that started its child is not interrupted: its child's ending answers it.
  const children = batch.open ? all.filter((call) => batch.children.has(call.id)) : [];
  const open = all.filter((call) => !children.includes(call));
  const interrupted = open.filter((call) => batch.started.has(call.id));
  const decided = (call: ToolCall) => isCleared(batch, call.id) || batch.decisions.has(call.id);
  const waiting = open.filter((call) => !decided(call));
  // Calls a person decided run together once the last waiting call is decided: the batch was
  // shown for a decision as a whole, and one of the decisions may hang on another. Calls that
  // need nobody's approval run at once.
  const mayRun = (call: ToolCall) =>
    batch.needsApproval.has(call.id) ? waiting.length === 0 && decided(call) : true;
  const runnable = open.filter((call) => !batch.started.has(call.id) && mayRun(call));
  if (interrupted.length > 0) {
    return point(
      "recover_tools",
      `tool calls started and have no result: answer ${names(interrupted)} as interrupted, then continue`,
      [...interrupted, ...runnable],
      interrupted,
    );
  }
  if (runnable.length > 0)
    return point("run_tools", `tool calls never started: run ${names(runnable)}`, runnable);
  if (waiting.length === 0) {
    return {
      ...notResumable(
        "awaiting_children",
        `waiting for sub-agent runs to end: ${children.map((call) => `${batch.children.get(call.id)} (${call.id})`).join(", ")}`,
        batch.response.seq,
      ),
      waitingChildren: children.map((call) => ({ call, childRunId: batch.children.get(call.id)! })),
    };
  }
  return {
    ...notResumable("awaiting_approval", `waiting for a decision on ${names(waiting)}`, batch.response.seq),
    waitingToolCalls: waiting,
  };
}
