import type { Classification, NotResumable } from "./classify.ts";
import type { RunEvent } from "./events.ts";
import type { LogFacts, LogStart } from "./log.ts";
import { readLog } from "./logReader.ts";

/**
 * A run's status. `running` comes from a live lease; every other status is
 * derived from the log: `paused` waits for approval decisions, `waiting` for the child runs of
 * its sub-agent calls to end (lib/core/subagents.ts), `failed` ends
 * in a recorded model failure and `interrupted` stopped anywhere else that
 * resume can continue from. `budget_exhausted` reached a limit of its budget
 * (lib/core/budget.ts) and waits for a person to raise it. `invalid_output` ended with a final
 * answer its agent's output schema rejected after every try (lib/core/structuredOutput.ts).
 */
export type RunStatus =
  | "running"
  | "paused"
  | "waiting"
  | "cancelled"
  | "completed"
  | "failed"
  | "interrupted"
  | "refused"
  | "context_full"
  | "unknown_stop"
  | "malformed"
  | "empty"
  | "budget_exhausted"
  | "invalid_output";

export const RUN_STATUSES: readonly RunStatus[] = [
  "running",
  "paused",
  "waiting",
  "cancelled",
  "completed",
  "failed",
  "interrupted",
  "refused",
  "context_full",
  "unknown_stop",
  "malformed",
  "empty",
  "budget_exhausted",
  "invalid_output",
];

/**
 * Statuses the log settles by itself: once their last event is stored, the execution holding the
 * run writes nothing more to it (it only rests the head and lets the lease go), so a reader may
 * give them while the lease is still held. A failure is not one: the execution may retry the call.
 */
export const SETTLED_BY_LOG: ReadonlySet<RunStatus> = new Set<RunStatus>([
  "completed",
  "refused",
  "context_full",
  "unknown_stop",
  "invalid_output",
]);

/** The status a log (or a tail from `start`) implies when nobody is executing the run. */
export function restingStatus(
  events: readonly RunEvent[],
  classification: Classification,
  start?: LogStart,
): RunStatus {
  return restingStatusOf(readLog(events, start), classification);
}

/** restingStatus, from facts already read (of a whole log or of a tail) and their classification. */
export function restingStatusOf(facts: LogFacts, classification: Classification): RunStatus {
  if (facts.stopped && (classification.resumable || classification.reason === "awaiting_approval")) {
    return "interrupted";
  }
  if (!classification.resumable) return stoppedStatus(classification);
  // Text saved after a failure is a later attempt the process died in: interrupted, not failed.
  return facts.last?.type === "model_failed" && !facts.partial ? "failed" : "interrupted";
}

const stoppedStatus = (classification: NotResumable): RunStatus =>
  classification.reason === "awaiting_approval"
    ? "paused"
    : classification.reason === "awaiting_children"
      ? "waiting"
      : classification.reason;
