import { InvalidInputError } from "../core/errors.ts";
import { MAX_RETENTION_DAYS } from "../core/retention.ts";
import { type RunStatus, SETTLED_BY_LOG } from "../core/status.ts";
import type { StepDeps } from "./deps.ts";

const DAY_MS = 86_400_000;

/**
 * Statuses a run rests in for good: nothing continues it on its own. The
 * others (paused, interrupted, malformed, empty) wait for a person or the
 * sweeper, so they keep no retention clock.
 */
const FINAL: ReadonlySet<RunStatus> = new Set<RunStatus>([...SETTLED_BY_LOG, "cancelled", "failed"]);

/** Whether a run resting in this status starts its retention clock. */
export const expiresWhenResting = (status: RunStatus) => FINAL.has(status);

/**
 * The retention as milliseconds from a number of days (`name` says whose, in the error);
 * undefined keeps runs forever.
 */
export function retentionMs(days: number | undefined, name = "retentionDays"): number | undefined {
  if (days === undefined) return undefined;
  if (typeof days !== "number" || !Number.isFinite(days) || days <= 0 || days > MAX_RETENTION_DAYS) {
    throw new InvalidInputError(
      `${name} must be a positive number of days up to ${MAX_RETENTION_DAYS} (e.g. 30), got ${typeof days === "number" ? String(days) : JSON.stringify(days)}`,
    );
  }
  return days * DAY_MS;
}

type RetentionDeps = Pick<StepDeps, "store" | "clock" | "retentionMs">;

/**
 * Start the retention clock of a run that came to rest in `status`, when that
 * status is final and a retention is configured: every item of the run then
 * expires `retentionMs` after `since` (when it came to rest; now by default).
 * Call it while no one can continue the run (Finish calls it before giving
 * back its lease). True when it set a TTL.
 */
export async function expireRun(
  deps: RetentionDeps,
  runId: string,
  status: RunStatus,
  since: Date = deps.clock.now(),
): Promise<boolean> {
  if (deps.retentionMs === undefined || !expiresWhenResting(status)) return false;
  await deps.store.expire(runId, new Date(since.getTime() + deps.retentionMs));
  return true;
}

/**
 * Stop the retention clock of a run about to be continued (a new message, a
 * resume), so nothing it still needs is deleted. Call it before writing to
 * the run, after taking its lease. Costs one read when the run has no TTL.
 */
export async function keepRun(deps: Pick<StepDeps, "store">, runId: string): Promise<void> {
  await deps.store.expire(runId, null);
}
