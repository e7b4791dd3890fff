import { ConflictError, LeaseHeldError, StaleError } from "../../core/errors.ts";
import type { RunHead } from "../../ports/eventStore.ts";
import { autoResumesAfter } from "../autoResumes.ts";
import type { ControlDeps } from "../deps.ts";
import { assertLeaseFree, giveBack, leaseFor } from "../lease.ts";
import { byOf, inputOf, type Move } from "./opening.ts";

// The lease a new generation is opened under: taken for its owner before its `resumed` is
// written, and given back when the request will not use it.

/** The head's automatic-resume record after this opening claims the run (see autoResumesAfter). */
export const recordAfter = (
  deps: ControlDeps,
  head: RunHead,
  opening: Move,
  lastWrite: number,
  completing = false,
) =>
  autoResumesAfter(
    head.autoResumes,
    { by: byOf(opening), input: inputOf(opening) },
    deps.clock.now().getTime(),
    lastWrite,
    completing,
  );

/**
 * Take the lease for the new generation's owner: from nobody, from a holder that is gone, or
 * (a handoff) from the execution handing over. The sweeper's automatic-resume record on the
 * head changes in the same write.
 */
export async function claimGenerationLease(
  deps: ControlDeps,
  head: RunHead,
  owner: string,
  opening: Move,
  lastWrite: number,
): Promise<void> {
  const { runId } = opening;
  const holder = head.lease?.owner;
  // Held by the very owner this request claims for: an earlier attempt of it (on AWS an owner names
  // the generation's execution, which cannot have started before its `resumed` is written).
  if (holder === owner) return;
  if (opening.kind === "handoff") {
    if (holder !== undefined && holder !== opening.owner) {
      throw new StaleError(`run ${runId} is held by ${holder}; generation ${opening.generation} stops`, {
        runId,
        generation: opening.generation,
      });
    }
  } else {
    await assertLeaseFree(deps, head);
  }
  try {
    await deps.store.claimLease(
      runId,
      leaseFor(deps, owner),
      head.leaseVersion,
      recordAfter(deps, head, opening, lastWrite),
    );
  } catch (error) {
    if (error instanceof ConflictError && !(error instanceof LeaseHeldError) && opening.kind !== "handoff") {
      throw new LeaseHeldError(`run ${runId} was claimed by another process first`, { cause: error, runId });
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
  opening: Move,
  owner: string,
  cause?: unknown,
): Promise<void> {
  try {
    if (opening.kind === "handoff") await returnLease(deps, opening, owner);
    else await giveBack(deps, opening.runId, owner);
  } catch (error) {
    if (cause === undefined) throw error;
    throw new AggregateError(
      [cause, error],
      `run ${opening.runId}: could not give back the lease after a failure`,
    );
  }
}

/** Move the lease back from the next generation's owner to the handing-over execution's. */
async function returnLease(
  deps: ControlDeps,
  handoff: Extract<Move, { kind: "handoff" }>,
  owner: string,
): Promise<void> {
  const head = await deps.store.getHead(handoff.runId);
  if (head?.lease?.owner !== owner) return;
  await deps.store.claimLease(handoff.runId, leaseFor(deps, handoff.owner), head.leaseVersion);
}
