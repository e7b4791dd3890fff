import { type Classification, classifyFacts, type NotResumable } from "../core/classify.ts";
import { LeaseHeldError, NotFoundError, RunCancelledError, StaleError } from "../core/errors.ts";
import { RESUMED_BY, type ResumeKind } from "../core/events.ts";
import type { LogFacts } from "../core/log.ts";
import type { ControlDeps } from "./deps.ts";
import { claimGenerationLease, handBack } from "./generationLease.ts";
import { nextAction } from "./nextAction.ts";
import {
  completeGeneration,
  lastWriteAt,
  modelInForce,
  openedBy,
  openedGeneration,
  openedResult,
  sameRequest,
} from "./openedGeneration.ts";
import { keepRun } from "./retention.ts";
import { type Decision, type LogView, readTail, viewFacts, writeNext } from "./writeNext.ts";

/**
 * A request to move a run to its next generation: what `resume`, `send`, the
 * last decision on a paused run, a fork with its first step, the sweeper and a
 * handoff ask for. Everything it carries goes on the `resumed` event.
 */
export interface AdvanceRequest {
  runId: string;
  /** Who moves the run (RESUMED_BY, or a caller's own name). */
  by: string;
  /** A new user message the generation starts with. */
  input?: string;
  /** A model spec to use from here on instead of the run's. */
  model?: string;
  /**
   * A handoff: the lease owner of the execution that hands over (it holds the lease, alive, and
   * passes it on) and its generation (the run moves from exactly that one).
   */
  from?: { owner: string; generation: number };
  /**
   * A retried creation (start, fork): only make sure the generation the run was created with
   * runs; never open one on a log that has moved on since.
   */
  onlyOpened?: boolean;
}

export type AdvanceResult =
  | {
      resumed: true;
      runId: string;
      generation: number;
      kind: ResumeKind;
      /**
       * False when this request found its generation opened already (its own earlier attempt, or
       * the same request from someone else) and only made sure that generation's execution runs.
       */
      opened: boolean;
    }
  | { resumed: false; runId: string; classification: NotResumable };

/** Where a run can take a new message: everything but a run that must not be written to. */
const CLOSED_TO_MESSAGES = new Set(["cancelled", "malformed", "empty"]);

/** How many times a request decides again on a log that grew while it was deciding. */
const REPLANS = 3;

/**
 * The one way a run moves to its next generation. Claim the lease, append
 * `resumed` with everything the request carries, and make sure the execution
 * of that generation runs, under its deterministic name. Idempotent at every
 * point: a request that finds the generation it would open already opened by
 * an equal request (the log ends at that `resumed`, or at `run_started`) and
 * not running does not open another; it starts that generation's execution.
 * So a crash or a failed start after any write is completed by retrying the
 * same request, or by the sweeper, with nothing lost and nothing done twice.
 */
export async function advance(deps: ControlDeps, request: AdvanceRequest): Promise<AdvanceResult> {
  for (let replans = REPLANS; ; replans--) {
    const outcome = await attempt(deps, request, replans > 0);
    if (outcome !== "replan") return outcome;
  }
}

async function attempt(
  deps: ControlDeps,
  request: AdvanceRequest,
  mayReplan: boolean,
): Promise<AdvanceResult | "replan"> {
  const { runId } = request;
  // The head and the tail of the log, never all of it: moving a run costs the same on any length.
  const tail = await readTail(deps, runId);
  // Read once, now: a log this process holds grows in place while we wait on the store below.
  const facts = viewFacts(deps, runId, tail);
  const seen = tail.events.at(-1)?.seq ?? 0;
  const from = request.from;
  if (from && facts.generation > from.generation) return handedOffAlready(deps, request, tail, facts);
  if (from && facts.cancelled)
    throw new RunCancelledError(`run ${runId} was cancelled by ${facts.cancelled.by}`);

  const opener = from ? undefined : openedGeneration(tail, facts);
  if (opener && sameRequest(opener, request)) {
    const done = await completeGeneration(deps, request, tail, facts, opener);
    if (done === "replan") {
      if (mayReplan) return "replan";
      throw new LeaseHeldError(`run ${runId} keeps moving on under another executor; not resuming it`);
    }
    if (typeof done === "object" && "holder" in done) {
      if (request.onlyOpened) return openedResult(runId, facts, opener);
      // Someone executes the generation this request would open (a concurrent resume, or this
      // request's own first attempt, still running): it is in progress, not resumed by us.
      throw new LeaseHeldError(
        `run ${runId} is being executed by ${done.holder} (generation ${facts.generation}, opened by ${openedBy(opener)}); not resuming it twice`,
      );
    }
    if (done !== "spent") return done;
    // That generation's execution ran and ended without a step (on AWS a name runs once): open the
    // next one. Its input, if any, is in the log already: the new generation must not repeat it.
    const { input: _, ...rest } = request;
    return openGeneration(deps, rest, tail, facts, seen, mayReplan);
  }
  if (request.onlyOpened) return wentOn(runId, facts);
  return openGeneration(deps, request, tail, facts, seen, mayReplan);
}

/** A retried creation that found the run gone on since: where it stands, opening nothing. */
function wentOn(runId: string, facts: LogFacts): AdvanceResult {
  const now = classifyFacts(facts);
  if (!now.resumable) return { resumed: false, runId, classification: now };
  return { resumed: true, runId, generation: facts.generation, kind: now.kind, opened: false };
}

/** Open generation `facts.generation + 1`: check, claim, append `resumed`, execute. */
async function openGeneration(
  deps: ControlDeps,
  request: AdvanceRequest,
  tail: LogView,
  facts: LogFacts,
  seen: number,
  mayReplan: boolean,
): Promise<AdvanceResult | "replan"> {
  const { runId } = request;
  const first = plan(facts, request.input);
  if (!first.resumable) return { resumed: false, runId, classification: first };
  // Before anything is written: a model that cannot be built (a missing key, a script path that
  // does not resolve here) is the caller's error, and the run must stay exactly as it was.
  // A handoff goes on with the model its execution has been calling: no check, and no read for it.
  const model = request.from ? facts.model : (request.model ?? (await modelInForce(deps, runId, facts)));
  if (!request.from && model !== undefined) deps.models(model);

  const head = await deps.store.getHead(runId);
  if (!head) throw new NotFoundError(`run ${runId} has no head record`);
  // The log grew after we read it (another writer in between): decide again on the log as it is now.
  if (head.lastSeq > seen && mayReplan) return "replan";
  const generation = facts.generation + 1;
  const owner = deps.orchestrator.leaseOwnerFor({ runId, generation, createdAt: head.createdAt });
  await claimGenerationLease(deps, head, owner, request, lastWriteAt(tail));
  deps.faults.reached(request.from ? "handoff:after-claim" : "control:after-claim");
  // Holding the lease, stop a finished run's retention clock before anything is written to it
  // (a run comes to rest, and starts that clock, only while its executor holds the lease).
  await keepRun(deps, runId);

  let point: Classification;
  try {
    point = await writeNext(
      deps,
      runId,
      facts.generation,
      opening(request, generation, model),
      async (fresh) =>
        // Decided on the tail already read; a lost seq race reads the tail again.
        fresh ? readTail(deps, runId) : tail,
    );
  } catch (error) {
    if (request.from && error instanceof StaleError && !(error instanceof RunCancelledError)) {
      // A duplicate of this handoff wrote the event first: go on from there.
      return attempt(deps, request, false);
    }
    await handBack(deps, request, owner, error);
    if (error instanceof StaleError && !(error instanceof RunCancelledError)) {
      throw new LeaseHeldError(`run ${runId} was resumed by another process first`, { cause: error });
    }
    throw error;
  }
  if (!point.resumable) {
    await handBack(deps, request, owner);
    return { resumed: false, runId, classification: point };
  }
  if (request.from) deps.faults.reached("handoff:after-append");
  else {
    deps.faults.reached("control:after-append");
    deps.faults.reached("control:before-execute");
  }
  await deps.orchestrator.execute({ runId, generation, next: nextAction(point, true), owner });
  return { resumed: true, runId, generation, kind: point.kind, opened: true };
}

/** The `resumed` event this request writes, decided again on the log as it is at the moment of writing. */
function opening(request: AdvanceRequest, generation: number, model: string | undefined) {
  return (_: unknown, facts: LogFacts): Decision<Classification> => {
    const now = plan(facts, request.input);
    if (!now.resumable) return { done: now };
    return {
      append: {
        type: "resumed",
        generation,
        kind: now.kind,
        description: now.description,
        // The model in force, changed or not: a tail that starts here knows it without the whole log.
        ...(model === undefined ? {} : { model }),
        ...(request.input === undefined ? {} : { input: request.input }),
        by: request.by,
      },
      result: () => now,
    };
  };
}

/**
 * A handoff found the run past its generation: its own earlier attempt (or a duplicate) opened
 * the next one. Start that generation if the log still ends at its `resumed`; once the log goes
 * on, the new execution has begun (and may have ended): nothing is left to do.
 */
async function handedOffAlready(
  deps: ControlDeps,
  request: AdvanceRequest,
  tail: LogView,
  facts: LogFacts,
): Promise<AdvanceResult> {
  const next = (request.from?.generation ?? 0) + 1;
  const marker = tail.events.findLast((event) => event.type === "resumed");
  if (
    facts.generation !== next ||
    (marker?.type === "resumed" && (marker.generation !== next || marker.by !== RESUMED_BY.handoff))
  ) {
    throw new StaleError(`run ${request.runId} was resumed to generation ${facts.generation} by another`);
  }
  const opener = openedGeneration(tail, facts);
  if (opener && sameRequest(opener, request)) {
    const done = await completeGeneration(deps, request, tail, facts, opener);
    if (typeof done === "object" && !("holder" in done)) return done;
  }
  return { resumed: true, runId: request.runId, generation: next, kind: "call_model", opened: false };
}

/** How resuming (or sending a message to) a log of these facts would start, or why it cannot. */
export function plan(facts: LogFacts, input: string | undefined): Classification {
  const classification = classifyFacts(facts);
  if (input === undefined || (!classification.resumable && CLOSED_TO_MESSAGES.has(classification.reason))) {
    return classification;
  }
  return {
    resumable: true,
    kind: "call_model",
    description: "a new user message: call the model",
    unansweredToolCalls: [],
    interruptedToolCalls: [],
  };
}
