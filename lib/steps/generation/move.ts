import { assertNever } from "../../core/assertNever.ts";
import { LeaseHeldError, RunCancelledError, StaleError } from "../../core/errors.ts";
import { RESUMED_BY } from "../../core/eventConstants.ts";
import type { LogFacts, LogView } from "../../core/log.ts";
import type { ControlDeps } from "../deps.ts";
import { readTail, readTailChecked, viewFacts } from "../logReads.ts";
import { completeGeneration } from "./complete.ts";
import { openNext } from "./next.ts";
import { openedBy, openedGeneration, sameRequest } from "./opened.ts";
import { type Move, type Outcome, withoutInput } from "./opening.ts";
import { type Attempt, replanOrRefuse } from "./replan.ts";

/** Move an existing run to its next generation, or complete the one an equal request opened. */
export async function move(deps: ControlDeps, opening: Move, mayReplan: boolean): Promise<Attempt> {
  const { runId } = opening;
  // The head and the tail of the log, never all of it: moving a run costs the same on any length.
  const tail = opening.kind === "handoff" ? await readTail(deps, runId) : await readTailChecked(deps, runId);
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
