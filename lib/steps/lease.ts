import { classifyFacts } from "../core/classify.ts";
import { CorruptEventError, LeaseHeldError } from "../core/errors.ts";
import { restingStatusOf } from "../core/status.ts";
import type { Lease, Resting, RunHead } from "../ports/eventStore.ts";
import type { ControlDeps, StepDeps } from "./deps.ts";
import { leaseIsLive } from "./liveness.ts";
import { readTail, viewFacts } from "./logReads.ts";
import { expireRun } from "./retention.ts";

/** A fresh lease for this owner, valid for the configured time from now. */
export function leaseFor(deps: ControlDeps, owner: string): Lease {
  return { owner, until: deps.clock.now().getTime() + deps.leaseMs };
}

/**
 * Refuse to start a second executor while the current one is alive. A lease
 * whose time ran out, or whose holder is gone (a killed process, an execution
 * that is no longer running), is free to take over.
 */
export async function assertLeaseFree(deps: ControlDeps, head: RunHead): Promise<void> {
  const lease = head.lease;
  if (!lease || !(await leaseIsLive(deps, lease))) return;
  throw new LeaseHeldError(
    `run ${head.runId} is being executed by ${lease.owner} (lease valid until ${new Date(lease.until).toISOString()}); ` +
      "not resuming it twice",
    { runId: head.runId },
  );
}

/**
 * Give back a lease taken and not used (a resume or handoff that found nothing to do, or failed),
 * recording the status the log shows and, for a final one, starting its retention clock again.
 */
export async function giveBack(deps: ControlDeps, runId: string, owner: string): Promise<void> {
  await letRest(deps, runId, owner, await restingNow(deps, runId));
}

/**
 * Let a run rest as `resting` says and drop this owner's lease: start the retention clock of a
 * final status while the lease is still ours (a resume, which keeps the run first, cannot slip in
 * between), then release. False when the lease is not ours (taken over by a newer claim, or
 * released by an earlier attempt of ours): then nothing is written, and the holder decides.
 * The agent in charge, when given, is what listings show.
 */
export async function letRest(
  deps: StepDeps,
  runId: string,
  owner: string,
  resting: Resting,
): Promise<boolean> {
  const head = await deps.store.getHead(runId);
  if (head?.lease?.owner !== owner) return false;
  await expireRun(deps, runId, resting.status);
  return deps.store.releaseLease(runId, owner, resting);
}

/**
 * The status the log's tail shows now, and the agent in charge when the tail shows it; `malformed`
 * for a log with a bad record. Any other failure to read it fails the give-back: a guess written
 * to the head would be a lie.
 */
async function restingNow(deps: ControlDeps, runId: string): Promise<Resting> {
  try {
    const facts = viewFacts(deps, runId, await readTail(deps, runId));
    const status = restingStatusOf(facts, classifyFacts(facts));
    return facts.agent === undefined ? { status } : { status, agent: facts.agent };
  } catch (error) {
    if (error instanceof CorruptEventError) return { status: "malformed" };
    throw error;
  }
}
