import { RESUMED_BY } from "./eventConstants.ts";
import type { EventOf, RunEvent } from "./events.ts";
import type { LogFacts } from "./log.ts";

export type ModelFailed = EventOf<"model_failed">;

/** Whether a run may be redriven (resumed after an outage), judged from its log alone. */
export type Redrivability = { redrivable: true; failure: ModelFailed } | { redrivable: false; why: string };

/**
 * Error names that say the model refused the request itself: asked again, it fails again.
 * A failure recorded under one of these is never redriven, whatever its `retryable` says.
 */
const REJECTED = new Set(["ModelRejectedError", "InvalidInputError", "PermanentError"]);

/**
 * Whether a run ended `failed` for a retryable reason: its log ends in a recorded model failure
 * (`model_failed`) whose `retryable` is true (a connection error, a 429, a 5xx: the workflow
 * records ModelUnavailableError, and RetryableError in logs from before the model errors had
 * their own names). A rejected request (`retryable: false`, ModelRejectedError) would fail again
 * and stays as it is. Every `model_failed` ever written records `retryable`, so no log is judged
 * by a guess; one whose error name says "rejected" is not redriven even if `retryable` is set.
 * Pure: facts in, a verdict out.
 */
export function redrivable(facts: LogFacts): Redrivability {
  const no = (why: string): Redrivability => ({ redrivable: false, why });
  if (facts.problem) return no(`malformed: ${facts.problem.message}`);
  if (facts.cancelled) return no("cancelled");
  if (facts.stopped) return no(`${facts.stopped.reason}: a person resumes it`);
  const last = facts.last;
  if (last?.type !== "model_failed") return no("does not end in a failed model call");
  const why = notRedrivableWhy(last);
  return why === undefined ? { redrivable: true, failure: last } : no(why);
}

/**
 * Why a recorded model failure would not be tried again by a redrive, or undefined when it would:
 * the one rule redrive and the lifecycle's `RunFailed.retryable` (lib/core/lifecycle.ts) share.
 */
export function notRedrivableWhy(failure: ModelFailed): string | undefined {
  if (!failure.retryable)
    return `the model rejected the request (${failure.error.name}): it would fail again`;
  if (REJECTED.has(failure.error.name)) return `the model rejected the request (${failure.error.name})`;
  return undefined;
}

/**
 * Redrives since the run last made progress: the `resumed` events by `redrive` after the latest
 * model response, user message or start, in events read oldest first (a tail read with
 * `redriveStreakBoundary` holds them all). What bounds automatic redrives of a run that keeps failing.
 */
export function redrivesInStreak(events: readonly RunEvent[]): number {
  let count = 0;
  for (const event of events) {
    if (isProgress(event)) count = 0;
    else if (event.type === "resumed" && event.by === RESUMED_BY.redrive) count++;
  }
  return count;
}

/**
 * For reading a log backwards: true at the oldest event `redrivesInStreak` needs (the latest
 * progress), or after `limit` events, which is enough to see that many redrives and more.
 */
export function redriveStreakBoundary(limit: number): (event: RunEvent) => boolean {
  let read = 0;
  return (event) => ++read >= limit || isProgress(event);
}

const isProgress = (event: RunEvent): boolean =>
  event.type === "model_response" ||
  event.type === "output_rejected" ||
  event.type === "user_message" ||
  event.type === "run_started" ||
  (event.type === "resumed" && event.input !== undefined);
