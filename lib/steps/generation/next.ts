import { type Classification, classifyFacts, type ResumePoint } from "../../core/classify.ts";
import { LeaseHeldError, NotFoundError, RunCancelledError, StaleError } from "../../core/errors.ts";
import type { RunEvent } from "../../core/events.ts";
import { keyedEvent } from "../../core/idempotency.ts";
import type { LogFacts, LogView } from "../../core/log.ts";
import { restingStatusOf, SETTLED_BY_LOG } from "../../core/status.ts";
import type { RunHead } from "../../ports/eventStore.ts";
import type { Decision } from "../appendNext.ts";
import type { ControlDeps } from "../deps.ts";
import { leaseIsLive } from "../liveness.ts";
import { readTail } from "../logReads.ts";
import { nextAction } from "../nextAction.ts";
import { keepRun } from "../retention.ts";
import { writeNext } from "../writeNext.ts";
import { claimGenerationLease, handBack } from "./lease.ts";
import { assertAgentHere, lastWriteAt, modelInForce } from "./opened.ts";
import { byOf, inputOf, keyOf, limitsAsked, type Move, modelAsked, settingsAsked, whoOf } from "./opening.ts";
import { carriedOut, plan, resumedEvent } from "./plan.ts";
import type { Attempt } from "./replan.ts";

/** Open generation `facts.generation + 1`: check, claim, append `resumed`, execute. */
export async function openNext(
  deps: ControlDeps,
  opening: Move,
  tail: LogView,
  facts: LogFacts,
  seen: number,
  mayReplan: boolean,
): Promise<Attempt> {
  const { runId } = opening;
  const handoff = opening.kind === "handoff";
  const input = inputOf(opening);
  const limits = limitsAsked(opening);
  const first = plan(facts, input, limits);
  if (!first.resumable) return { kind: "not_resumable", runId, classification: first };
  // Before anything is written: a model that cannot be built (a missing key, a script path that
  // does not resolve here) is the caller's error, and the run must stay exactly as it was.
  // A handoff goes on with the model its execution has been calling: no check, and no read for it.
  const model = handoff ? facts.model : (modelAsked(opening) ?? (await modelInForce(deps, runId, facts)));
  if (!handoff && model !== undefined) deps.models(model);

  const head = await deps.store.getHead(runId);
  if (!head) throw new NotFoundError(`run ${runId} has no head record`, { runId });
  if (!handoff) await assertAgentHere(deps, runId, facts, head);
  // The log grew after we read it (another writer in between): decide again on the log as it is now.
  if (head.lastSeq > seen && mayReplan) return { kind: "replan" };
  // The log has come to rest (a final answer …) but its execution still holds the lease for the
  // moment it takes to rest the head: a message sent on the outcome just read waits for that,
  // then decides again, instead of being refused as a run still executing.
  if (!handoff && mayReplan && (await settlingElsewhere(deps, head, facts))) return { kind: "replan" };
  const generation = facts.generation + 1;
  const owner = deps.orchestrator.leaseOwnerFor({ runId, generation, createdAt: head.createdAt });
  await claimGenerationLease(deps, head, owner, opening, lastWriteAt(tail));
  deps.faults.reached(handoff ? "handoff:after-claim" : "control:after-claim");
  // Holding the lease, stop a finished run's retention clock before anything is written to it
  // (a run comes to rest, and starts that clock, only while its executor holds the lease).
  await keepRun(deps, runId);

  let point: Classification;
  try {
    point = await writeNext(
      deps,
      runId,
      facts.generation,
      resumedDecision(runId, input, carriedOutBy(deps, head.agent), {
        generation,
        by: byOf(opening),
        ...whoOf(opening),
        input,
        model,
        idempotencyKey: keyOf(opening),
        limits,
        modelSettings: settingsAsked(opening),
      }),
      async (fresh) =>
        // Decided on the tail already read; a lost seq race reads the tail again.
        fresh ? readTail(deps, runId) : tail,
    );
  } catch (error) {
    const lost = error instanceof StaleError && !(error instanceof RunCancelledError);
    // A duplicate of this handoff wrote the event first: decide again, and go on from there.
    if (handoff && lost) return { kind: "replan" };
    await handBack(deps, opening, owner, error);
    if (lost) {
      throw new LeaseHeldError(`run ${runId} was resumed by another process first`, {
        cause: error,
        runId,
        generation,
      });
    }
    throw error;
  }
  if (!point.resumable) {
    await handBack(deps, opening, owner);
    return { kind: "not_resumable", runId, classification: point };
  }
  if (handoff) deps.faults.reached("handoff:after-append");
  else {
    deps.faults.reached("control:after-append");
    deps.faults.reached("control:before-execute");
  }
  await deps.orchestrator.execute({ runId, generation, next: nextAction(point, true), owner });
  return { kind: "opened", runId, generation, resumeKind: point.kind };
}

/** The point as carried out by the tools of the agent that asked for its calls (carriedOut). */
function carriedOutBy(deps: ControlDeps, headAgent: string) {
  return (point: ResumePoint, facts: LogFacts): ResumePoint =>
    point.interruptedToolCalls.length === 0
      ? point
      : carriedOut(point, deps.agents(facts.batch?.agent ?? facts.agent ?? headAgent).tools);
}

/** The `resumed` event a request writes, decided again on the log as it is at the moment of writing. */
function resumedDecision(
  runId: string,
  input: string | undefined,
  carriedOut: (point: ResumePoint, facts: LogFacts) => ResumePoint,
  fields: Parameters<typeof resumedEvent>[1],
) {
  return (events: readonly RunEvent[], facts: LogFacts): Decision<Classification> => {
    // Under the seq lock: an equal request (the same key) wrote its event first, on the log as it is now.
    const key = fields.idempotencyKey;
    const earlier = key === undefined ? undefined : keyedEvent(events, key);
    if (earlier) {
      throw new StaleError(`run ${runId} took this request already (seq ${earlier.seq})`, {
        runId,
        seq: earlier.seq,
      });
    }
    const now = plan(facts, input, fields.limits);
    if (!now.resumable) return { done: now };
    return { append: resumedEvent(carriedOut(now, facts), fields), result: () => now };
  };
}

/** How long a request waits for an execution whose log has come to rest to let go of the run. */
export const SETTLING_WAIT_MS = 5_000;

/**
 * True once the live holder of a run whose log is settled (SETTLED_BY_LOG) has let it go, within
 * SETTLING_WAIT_MS; false when there is no such holder, or it keeps the run longer (then the claim
 * refuses, as for any live holder).
 */
async function settlingElsewhere(deps: ControlDeps, head: RunHead, facts: LogFacts): Promise<boolean> {
  const held = head.lease;
  if (held === undefined || !SETTLED_BY_LOG.has(restingStatusOf(facts, classifyFacts(facts)))) return false;
  const until = Date.now() + SETTLING_WAIT_MS;
  for (let waitMs = 5; Date.now() < until; waitMs = Math.min(waitMs * 2, 100)) {
    if (!(await leaseIsLive(deps, held))) return true;
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    const now = await deps.store.getHead(head.runId);
    if (now?.lease?.owner !== held.owner || now.leaseVersion !== head.leaseVersion) return true;
  }
  return false;
}
