import { assertNever } from "../../core/assertNever.ts";
import { classifyFacts } from "../../core/classify.ts";
import type { ControlDeps } from "../deps.ts";
import { copyEvents } from "../forkCopy.ts";
import { leaseFor } from "../lease.ts";
import { readTail, viewFacts } from "../logReads.ts";
import { nextAction } from "../nextAction.ts";
import { completeGeneration } from "./complete.ts";
import { openNext } from "./next.ts";
import { openedGeneration, openedKind } from "./opened.ts";
import { type Creation, type Outcome, resumeOf } from "./opening.ts";
import { type Attempt, replanning, replanOrRefuse } from "./replan.ts";

/**
 * Create the run with the lease of its first generation (one write: its claim and its opening
 * event), then execute that generation. A fork writes its copy, ending at its opening `resumed`,
 * first: until `run_started` and the head exist the fork is invisible, and once they do it is
 * whole. The same creation retried completes what its first attempt began and opens nothing else.
 */
export async function create(deps: ControlDeps, opening: Creation): Promise<Outcome> {
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
