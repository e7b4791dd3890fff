import { type Classification, classify, classifyFacts } from "../core/classify.ts";
import { NotFoundError, RunCancelledError, StaleError } from "../core/errors.ts";
import { RESUMED_BY, type RunEvent } from "../core/events.ts";
import { readLog } from "../core/log.ts";
import type { ControlDeps, StepInput } from "./deps.ts";
import { leaseFor } from "./lease.ts";
import { nextAction } from "./nextAction.ts";
import { assertCurrent, loadRun, writeNext } from "./writeNext.ts";

export interface HandoffInput extends StepInput {
  /** The lease owner the handing-over execution runs under. */
  owner: string;
}

export type HandoffResult = { handedOff: true; generation: number } | { handedOff: false; reason: string };

/**
 * The Handoff task: this execution has done its share of steps, so the run
 * goes on in a new execution of the next generation, the way `runlog resume`
 * continues a run: the lease passes from this execution's owner to the new
 * one's (compare-and-set on the lease version), a `resumed` event by
 * `handoff` fences this generation, and the new execution starts. Safe to
 * retry at any point: a retry finds its own lease claim or its own `resumed`
 * event and goes on from there.
 */
export async function handOff(deps: ControlDeps, input: HandoffInput): Promise<HandoffResult> {
  const { runId, generation } = input;
  const next = generation + 1;
  const owner = deps.orchestrator.leaseOwnerFor({ runId, generation: next });
  const events = await loadRun(deps, runId);
  const facts = deps.logs.factsOf(runId, events);
  if (facts.generation > generation) return restart(deps, input, events, owner);
  assertCurrent(runId, facts, generation);

  await takeLease(deps, input, owner);
  deps.faults.reached("handoff:after-claim");
  let point: Classification;
  try {
    point = await writeNext<Classification>(deps, runId, generation, (_, latest) => {
      const now = classifyFacts(latest);
      if (!now.resumable) return { done: now };
      return {
        append: {
          type: "resumed",
          generation: next,
          kind: now.kind,
          description: now.description,
          by: RESUMED_BY.handoff,
        },
        result: () => now,
      };
    });
  } catch (error) {
    // A duplicate of this handoff (a redelivery) wrote the event first: go on from there.
    if (error instanceof StaleError && !(error instanceof RunCancelledError)) {
      return restart(deps, input, await loadRun(deps, runId), owner);
    }
    // Not to an execution that will not start: a retry takes it again, or Finish gives it back.
    await returnLease(deps, input, owner).catch(() => {});
    throw error;
  }
  if (!point.resumable) {
    // Nothing to hand over (the run ended or was cancelled meanwhile): Finish, next, lets the run rest.
    await returnLease(deps, input, owner);
    return { handedOff: false, reason: point.reason };
  }
  deps.faults.reached("handoff:after-append");
  await deps.orchestrator.execute({ runId, generation: next, next: nextAction(point, true), owner });
  return { handedOff: true, generation: next };
}

/**
 * A retry after the `resumed` event was written: if that event is this
 * handoff's (the next generation, by handoff, nothing newer) and the log still
 * ends there, start its execution, with the same input as the first attempt
 * (the classification of the log before the event), so Step Functions counts a
 * repeated start as started. Once the log goes on, the new execution has begun
 * (and may have ended, giving its lease back): nothing is left to do.
 */
async function restart(
  deps: ControlDeps,
  input: HandoffInput,
  events: RunEvent[],
  owner: string,
): Promise<HandoffResult> {
  const { runId } = input;
  const next = input.generation + 1;
  const marker = events.findLast((event) => event.type === "resumed");
  if (marker?.type !== "resumed" || marker.generation !== next || marker.by !== RESUMED_BY.handoff) {
    throw new StaleError(`run ${runId} was resumed to generation ${readLog(events).generation} by another`);
  }
  if (events.at(-1)!.seq !== marker.seq) return { handedOff: true, generation: next };
  await takeLease(deps, input, owner);
  const point = classify(events.slice(0, marker.seq - 1));
  if (!point.resumable) throw new Error(`unreachable: run ${runId} was handed off from a final state`);
  await deps.orchestrator.execute({ runId, generation: next, next: nextAction(point, true), owner });
  return { handedOff: true, generation: next };
}

/**
 * Move the lease from the handing-over execution (or from nobody, after a
 * failed attempt gave it up) to the new owner; nothing to do if it has it.
 * Held by anyone else, the run was taken over: this execution stops.
 */
async function takeLease(deps: ControlDeps, input: HandoffInput, owner: string): Promise<void> {
  const head = await deps.store.getHead(input.runId);
  if (!head) throw new NotFoundError(`run ${input.runId} has no head record`);
  const holder = head.lease?.owner;
  if (holder === owner) return;
  if (holder !== undefined && holder !== input.owner) {
    throw new StaleError(`run ${input.runId} is held by ${holder}; generation ${input.generation} stops`);
  }
  await deps.store.claimLease(input.runId, leaseFor(deps, owner), head.leaseVersion);
}

/** Move the lease back from the next generation's owner to this execution's, for its Finish to give back. */
async function returnLease(deps: ControlDeps, input: HandoffInput, owner: string): Promise<void> {
  const head = await deps.store.getHead(input.runId);
  if (head?.lease?.owner !== owner) return;
  await deps.store.claimLease(input.runId, leaseFor(deps, input.owner), head.leaseVersion);
}
