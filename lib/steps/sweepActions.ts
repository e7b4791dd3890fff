/*
 * What the sweep does with a run it has judged: resume it as the sweeper, or record the status it
 * rests in so its head stops showing `running`.
 */
import { benignReason, ConflictError, errorMessage } from "../core/errors.ts";
import type { RunStatus } from "../core/status.ts";
import type { RunHead } from "../ports/eventStore.ts";
import type { ControlDeps } from "./deps.ts";
import { openGeneration } from "./generation/open.ts";
import { resumeResult } from "./generation/outcome.ts";
import { leaseFor } from "./lease.ts";
import { expireRun } from "./retention.ts";
import type { SweepOutcome } from "./sweepPolicy.ts";

/** The lease owner the sweeper writes a resting status under (never an execution: see `rest`). */
const SWEEPER_OWNER = "sweeper";

/**
 * Resume as the sweeper; a resumer that got there first, a cancel or a newer generation met on
 * the way is a reason to skip, not a failure (benignReason, as the AWS functions answer them).
 */
export async function resumeAs(
  deps: ControlDeps,
  runId: string,
  skip: (why: string) => SweepOutcome,
): Promise<SweepOutcome> {
  try {
    const result = resumeResult(await openGeneration(deps, { kind: "sweep", runId }));
    if (result.resumed) return { runId, resumed: true, generation: result.generation, kind: result.kind };
    return skip(`not resumable: ${result.classification.reason}`);
  } catch (error) {
    // Another resumer (a person, a failure event, a parallel sweep) got there first, or a cancel.
    if (benignReason(error) !== undefined) return skip(errorMessage(error));
    throw error;
  }
}

/**
 * Record the status a run whose executor is gone rests in, so its head stops showing `running`:
 * taking the lease first (at the version read) makes this a compare-and-set, so a resume that
 * claimed the run in between is never overwritten. Losing that race leaves the head to the winner.
 * `agent`: the agent in charge, when the tail shows it.
 */
export async function rest(
  deps: ControlDeps,
  head: RunHead,
  status: RunStatus,
  lastSeq?: number,
  agent?: string,
): Promise<void> {
  if (head.status === status && !head.lease && (agent === undefined || agent === head.agent)) return;
  const owner = `${SWEEPER_OWNER}:${head.runId}`;
  try {
    await deps.store.claimLease(head.runId, leaseFor(deps, owner), head.leaseVersion);
  } catch (error) {
    if (error instanceof ConflictError) return;
    throw error;
  }
  await expireRun(deps, head.runId, status);
  await deps.store.releaseLease(head.runId, owner, { status, lastSeq, agent });
}

/** Whether the holder of a run's lease never had its execution started (or nobody holds it). */
export async function neverExecuted(deps: ControlDeps, head: RunHead): Promise<boolean> {
  return !head.lease || (await deps.orchestrator.executionOf(head.lease.owner)) === "none";
}
