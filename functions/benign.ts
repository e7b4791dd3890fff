import { LeaseHeldError, RunCancelledError, StaleError } from "../lib/core/errors.ts";

/** Why a request that came in (an event, a redelivery, a sweep) found nothing to do. */
export type BenignReason = "running" | "cancelled" | "superseded";

/**
 * Whether an error of a start, resume or recovery is the answer rather than a failure: the run
 * is being executed by someone else (a resume of a running run, a duplicate delivery, a sweep
 * meeting a resume), was cancelled, or a newer generation owns it. Retrying changes none of
 * these, so the caller is answered and nothing goes to the dead-letter queue. A caller-chosen
 * id naming another run (IdTakenError, a ConflictError but no LeaseHeldError) is the caller's
 * mistake: it stays an error.
 */
export function benignReason(error: unknown): BenignReason | undefined {
  if (error instanceof LeaseHeldError) return "running";
  if (error instanceof RunCancelledError) return "cancelled";
  if (error instanceof StaleError) return "superseded";
  return undefined;
}
