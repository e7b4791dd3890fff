import { ConflictError, LeaseHeldError, StaleError } from "../core/errors.ts";
import type { RunHead } from "../ports/eventStore.ts";
import type { AdvanceRequest } from "./advance.ts";
import { autoResumesAfter } from "./autoResumes.ts";
import type { ControlDeps } from "./deps.ts";
import { assertLeaseFree, giveBack, leaseFor } from "./lease.ts";

// The lease a new generation is opened under (advance.ts): taken for its owner, and given back
// when the request will not use it.

/**
 * Take the lease for the new generation's owner: from nobody, from a holder that is gone, or
 * (a handoff) from the execution handing over. The sweeper's automatic-resume record on the
 * head changes in the same write.
 */
export async function claimGenerationLease(
  deps: ControlDeps,
  head: RunHead,
  owner: string,
  request: AdvanceRequest,
  lastWrite: number,
): Promise<void> {
  const holder = head.lease?.owner;
  // Held by the very owner this request claims for: an earlier attempt of it (on AWS an owner names
  // the generation's execution, which cannot have started before its `resumed` is written).
  if (holder === owner) return;
  if (request.from) {
    if (holder !== undefined && holder !== request.from.owner) {
      throw new StaleError(
        `run ${request.runId} is held by ${holder}; generation ${request.from.generation} stops`,
      );
    }
  } else {
    await assertLeaseFree(deps, head);
  }
  const record = autoResumesAfter(head.autoResumes, request, deps.clock.now().getTime(), lastWrite);
  try {
    await deps.store.claimLease(request.runId, leaseFor(deps, owner), head.leaseVersion, record);
  } catch (error) {
    if (error instanceof ConflictError && !(error instanceof LeaseHeldError) && !request.from) {
      throw new LeaseHeldError(`run ${request.runId} was claimed by another process first`, { cause: error });
    }
    throw error;
  }
}

/**
 * Give back a lease this request took and will not use. A handoff gives it back to the
 * execution that handed over, whose Finish then lets the run rest; anyone else lets the run rest
 * now. A failure to give it back is reported with the error that made us give it back.
 */
export async function handBack(
  deps: ControlDeps,
  request: AdvanceRequest,
  owner: string,
  cause?: unknown,
): Promise<void> {
  try {
    if (request.from) await returnLease(deps, request, owner);
    else await giveBack(deps, request.runId, owner);
  } catch (error) {
    if (cause === undefined) throw error;
    throw new AggregateError(
      [cause, error],
      `run ${request.runId}: could not give back the lease after a failure`,
    );
  }
}

/** Move the lease back from the next generation's owner to the handing-over execution's. */
async function returnLease(deps: ControlDeps, request: AdvanceRequest, owner: string): Promise<void> {
  const head = await deps.store.getHead(request.runId);
  if (head?.lease?.owner !== owner || !request.from) return;
  await deps.store.claimLease(request.runId, leaseFor(deps, request.from.owner), head.leaseVersion);
}
