import type { Classification } from "./classify.ts";
import type { RunEvent } from "./events.ts";
import { type LogStart, readLog } from "./log.ts";

/**
 * A run's status. `running` comes from a live lease; every other status is
 * derived from the log: `paused` waits for approval decisions, `failed` ends
 * in a recorded model failure and `interrupted` stopped anywhere else that
 * resume can continue from.
 */
export type RunStatus =
  | "running"
  | "paused"
  | "cancelled"
  | "completed"
  | "failed"
  | "interrupted"
  | "refused"
  | "context_full"
  | "unknown_stop"
  | "malformed"
  | "empty";

export const RUN_STATUSES: readonly RunStatus[] = [
  "running",
  "paused",
  "cancelled",
  "completed",
  "failed",
  "interrupted",
  "refused",
  "context_full",
  "unknown_stop",
  "malformed",
  "empty",
];

/** The status a log (or a tail from `start`) implies when nobody is executing the run. */
export function restingStatus(
  events: readonly RunEvent[],
  classification: Classification,
  start?: LogStart,
): RunStatus {
  if (!classification.resumable) {
    return classification.reason === "awaiting_approval" ? "paused" : classification.reason;
  }
  return readLog(events, start).last?.type === "model_failed" ? "failed" : "interrupted";
}
