import type { Classification } from "../../core/classify.ts";
import { classifyFacts } from "../../core/classify.ts";
import { LeaseHeldError, NotFoundError, RunCancelledError, StaleError } from "../../core/errors.ts";
import { RESUMED_BY } from "../../core/events.ts";
import { assertNever, type LogFacts, type LogView } from "../../core/log.ts";
import type { Decision } from "../appendNext.ts";
import type { ControlDeps } from "../deps.ts";
import { copyEvents } from "../forkCopy.ts";
import { leaseFor } from "../lease.ts";
import { readTail, viewFacts } from "../logReads.ts";
import { nextAction } from "../nextAction.ts";
import { keepRun } from "../retention.ts";
import { writeNext } from "../writeNext.ts";
import { completeGeneration } from "./complete.ts";
import { claimGenerationLease, handBack } from "./lease.ts";
import { lastWriteAt, modelInForce, openedBy, openedGeneration, openedKind, sameRequest } from "./opened.ts";
import {
  byOf,
  type Creation,
  inputOf,
  type Move,
  modelAsked,
  type Opening,
  type Outcome,
  resumeOf,
  withoutInput,
} from "./opening.ts";
import { plan, resumedEvent } from "./plan.ts";

/** How many times a request decides again on a log that grew while it was deciding. */
const REPLANS = 3;

/** One attempt's end: an outcome, or the log grew under it and the request decides again. */
type Attempt = Outcome | { kind: "replan" };

/**
 * The one way a run gets a generation to execute: open it (create the run, or append `resumed`
 * with everything the request carries) under a lease taken first, and make sure the execution of
 * that generation runs, under its deterministic name. Idempotent at every point: a request that
 * finds the generation it would open already opened by an equal request (the log ends at that
 * `resumed`, or at `run_started`) and not running does not open another; it starts that
 * generation's execution. So a crash or a failed start after any write is completed by retrying
 * the same request, or by the sweeper, with nothing lost and nothing done twice.
 */
export async function openGeneration(deps: ControlDeps, opening: Opening): Promise<Outcome> {
  switch (opening.kind) {
    case "start":
    case "fork":
      return create(deps, opening);
    case "resume":
    case "send":
    case "decide":
    case "sweep":
    case "handoff":
      return replanning((mayReplan) => move(deps, opening, mayReplan));
    default:
      return assertNever(opening);
  }
}

async function replanning(attempt: (mayReplan: boolean) => Promise<Attempt>): Promise<Outcome> {
  for (let replans = REPLANS; ; replans--) {
    const outcome = await attempt(replans > 0);
    if (outcome.kind !== "replan") return outcome;
  }
}

/**
 * Create the run with the lease of its first generation (one write: its claim and its opening
 * event), then execute that generation. A fork writes its copy, ending at its opening `resumed`,
 * first: until `run_started` and the head exist the fork is invisible, and once they do it is
 * whole. The same creation retried completes what its first attempt began and opens nothing else.
 */
async function create(deps: ControlDeps, opening: Creation): Promise<Outcome> {
  const { first } = opening;
  const runId = first.runId;
  const generation = opening.kind === "fork" ? opening.generation : 1;
  if (opening.kind === "fork") {
    await copyEvents(deps.store, first, opening.copy);
    deps.faults.reached("fork:after-copy");
  }
  // The run's head records its `run_started` time as its creation: the same time names its executions.
  const owner = deps.orchestrator.leaseOwnerFor({ runId, generation, createdAt: first.at });
  const { created } = await deps.store.createRun(first, leaseFor(deps, owner));
  if (!created) return replanning((mayReplan) => completeCreation(deps, runId, mayReplan));
  deps.logs.appended(runId, first);
  if (opening.kind === "start") deps.observer?.appended(runId, first);
  deps.faults.reached("control:after-claim");
  deps.faults.reached("control:after-append");
  deps.faults.reached("control:before-execute");
  const next = opening.kind === "fork" ? nextAction(opening.point, true) : { action: "model" as const };
  await deps.orchestrator.execute({ runId, generation, next, owner });
  const resumeKind = opening.kind === "fork" ? opening.point.kind : "call_model";
  return { kind: "created", runId, generation, resumeKind };
}

/**
 * A retried creation: make sure the generation the run was created with runs; never open one on a
 * log that has moved on since (only one whose opened generation ran and ended without a step).
 */
async function completeCreation(deps: ControlDeps, runId: string, mayReplan: boolean): Promise<Attempt> {
  const tail = await readTail(deps, runId);
  const facts = viewFacts(deps, runId, tail);
  const seen = tail.events.at(-1)?.seq ?? 0;
  const opener = openedGeneration(tail, facts);
  const asResume = resumeOf(runId);
  if (!opener) {
    const now = classifyFacts(facts);
    if (!now.resumable) return { kind: "not_resumable", runId, classification: now };
    return { kind: "went_on", runId, generation: facts.generation, resumeKind: now.kind };
  }
  const done = await completeGeneration(deps, asResume, tail, facts, opener);
  switch (done.kind) {
    case "started":
      return done.outcome;
    case "held":
      return {
        kind: "in_progress",
        runId,
        generation: facts.generation,
        resumeKind: openedKind(opener),
        holder: done.holder,
      };
    case "replan":
      return replanOrRefuse(runId, facts, mayReplan);
    case "spent":
      return openNext(deps, asResume, tail, facts, seen, mayReplan);
    default:
      return assertNever(done);
  }
}

/** Move an existing run to its next generation, or complete the one an equal request opened. */
async function move(deps: ControlDeps, opening: Move, mayReplan: boolean): Promise<Attempt> {
  const { runId } = opening;
  // The head and the tail of the log, never all of it: moving a run costs the same on any length.
  const tail = await readTail(deps, runId);
  // Read once: the facts of the log as it was read, whatever is written while we wait on the store.
  const facts = viewFacts(deps, runId, tail);
  const seen = tail.events.at(-1)?.seq ?? 0;
  if (opening.kind === "handoff") {
    if (facts.generation > opening.generation) return handedOverAlready(deps, opening, tail, facts);
    if (facts.cancelled) {
      throw new RunCancelledError(`run ${runId} was cancelled by ${facts.cancelled.by}`, {
        runId,
        generation: opening.generation,
      });
    }
    return openNext(deps, opening, tail, facts, seen, mayReplan);
  }
  const opener = openedGeneration(tail, facts);
  if (!opener || !sameRequest(opener, opening)) return openNext(deps, opening, tail, facts, seen, mayReplan);
  const done = await completeGeneration(deps, opening, tail, facts, opener);
  switch (done.kind) {
    case "started":
      return done.outcome;
    case "replan":
      return replanOrRefuse(runId, facts, mayReplan);
    case "held":
      // Someone executes the generation this request would open (a concurrent resume, or this
      // request's own first attempt, still running): it is in progress, not resumed by us.
      throw new LeaseHeldError(
        `run ${runId} is being executed by ${done.holder} (generation ${facts.generation}, opened by ${openedBy(opener)}); not resuming it twice`,
        { runId, generation: facts.generation },
      );
    case "spent":
      // That generation's execution ran and ended without a step: open the next one. Its input,
      // if any, is in the log already: the new generation must not repeat it.
      return openNext(deps, withoutInput(opening), tail, facts, seen, mayReplan);
    default:
      return assertNever(done);
  }
}

function replanOrRefuse(runId: string, facts: LogFacts, mayReplan: boolean): Attempt {
  if (mayReplan) return { kind: "replan" };
  throw new LeaseHeldError(`run ${runId} keeps moving on under another executor; not resuming it`, {
    runId,
    generation: facts.generation,
  });
}

/** Open generation `facts.generation + 1`: check, claim, append `resumed`, execute. */
async function openNext(
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
  const first = plan(facts, input);
  if (!first.resumable) return { kind: "not_resumable", runId, classification: first };
  // Before anything is written: a model that cannot be built (a missing key, a script path that
  // does not resolve here) is the caller's error, and the run must stay exactly as it was.
  // A handoff goes on with the model its execution has been calling: no check, and no read for it.
  const model = handoff ? facts.model : (modelAsked(opening) ?? (await modelInForce(deps, runId, facts)));
  if (!handoff && model !== undefined) deps.models(model);

  const head = await deps.store.getHead(runId);
  if (!head) throw new NotFoundError(`run ${runId} has no head record`, { runId });
  // The log grew after we read it (another writer in between): decide again on the log as it is now.
  if (head.lastSeq > seen && mayReplan) return { kind: "replan" };
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
      resumedDecision(input, { generation, by: byOf(opening), input, model }),
      async (fresh) =>
        // Decided on the tail already read; a lost seq race reads the tail again.
        fresh ? readTail(deps, runId) : tail,
    );
  } catch (error) {
    const lost = error instanceof StaleError && !(error instanceof RunCancelledError);
    // A duplicate of this handoff wrote the event first: go on from there.
    if (handoff && lost) return move(deps, opening, false);
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

/** The `resumed` event a request writes, decided again on the log as it is at the moment of writing. */
function resumedDecision(input: string | undefined, fields: Parameters<typeof resumedEvent>[1]) {
  return (_: unknown, facts: LogFacts): Decision<Classification> => {
    const now = plan(facts, input);
    if (!now.resumable) return { done: now };
    return { append: resumedEvent(now, fields), result: () => now };
  };
}

/**
 * A handoff found the run past its generation: its own earlier attempt (or a duplicate) opened
 * the next one. Start that generation if the log still ends at its `resumed`; once the log goes
 * on, the new execution has begun (and may have ended): nothing is left to do.
 */
async function handedOverAlready(
  deps: ControlDeps,
  handoff: Extract<Move, { kind: "handoff" }>,
  tail: LogView,
  facts: LogFacts,
): Promise<Outcome> {
  const { runId } = handoff;
  const next = handoff.generation + 1;
  const marker = tail.events.findLast((event) => event.type === "resumed");
  if (
    facts.generation !== next ||
    (marker?.type === "resumed" && (marker.generation !== next || marker.by !== RESUMED_BY.handoff))
  ) {
    throw new StaleError(`run ${runId} was resumed to generation ${facts.generation} by another`, {
      runId,
      generation: facts.generation,
    });
  }
  const opener = openedGeneration(tail, facts);
  if (opener && sameRequest(opener, handoff)) {
    const done = await completeGeneration(deps, handoff, tail, facts, opener);
    if (done.kind === "started") return done.outcome;
  }
  return { kind: "handed_over", runId, generation: next };
}
