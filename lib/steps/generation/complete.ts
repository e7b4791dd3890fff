import { ConflictError, NotFoundError } from "../../core/errors.ts";
import { RESUMED_BY } from "../../core/eventConstants.ts";
import type { LogFacts, LogView } from "../../core/log.ts";
import type { AutoResumes, RunHead } from "../../ports/eventStore.ts";
import { finishesOwnResume } from "../autoResumes.ts";
import type { ControlDeps } from "../deps.ts";
import { leaseFor } from "../lease.ts";
import { recordAfter } from "./lease.ts";
import { assertAgentHere, modelInForce, type Opener, openedAction, openedKind } from "./opened.ts";
import { byOf, type Move, type Outcome } from "./opening.ts";

/** What completing an opened generation came to. */
export type Completion =
  /** Its execution was started by this request. */
  | { kind: "started"; outcome: Extract<Outcome, { kind: "completed" }> }
  /** Its execution is running under `holder` (or another request claimed it a moment ago). */
  | { kind: "held"; holder: string }
  /** Its execution ran and ended (on AWS a name runs once): the run needs a new generation. */
  | { kind: "spent" }
  /** The log went on since it was read: decide again. */
  | { kind: "replan" };

/**
 * Make sure an opened generation's execution runs: nothing if it does, else start it under the
 * lease (claimed again if its holder is gone) with the input the first attempt gave it, so on
 * AWS a start both made count as one.
 */
export async function completeGeneration(
  deps: ControlDeps,
  opening: Move,
  tail: LogView,
  facts: LogFacts,
  opener: Opener,
): Promise<Completion> {
  const { runId } = opening;
  const generation = facts.generation;
  // The execution calls the model: check it can be built before anything is claimed or started.
  // A handoff goes on with the model its execution has been calling.
  if (opening.kind !== "handoff") deps.models(await modelInForce(deps, runId, facts));
  const head = await deps.store.getHead(runId);
  if (!head) throw new NotFoundError(`run ${runId} has no head record`, { runId });
  if (opening.kind !== "handoff") await assertAgentHere(deps, runId, facts, head);
  // The log went on since it was read (another request completed the generation): decide again.
  if (head.lastSeq > opener.seq) return { kind: "replan" };
  const holder = head.lease?.owner;
  if (holder !== undefined) {
    const state = await deps.orchestrator.executionOf(holder);
    if (state === "running") return { kind: "held", holder };
    if (state === "ended") return { kind: "spent" };
  }
  const owner = deps.orchestrator.leaseOwnerFor({ runId, generation, createdAt: head.createdAt });
  // Claimed even by the owner that holds it (on AWS the generation's own name): the version check
  // lets one of two requests completing at once start the execution.
  const record = completionRecord(deps, head, opening, opener);
  try {
    await deps.store.claimLease(runId, leaseFor(deps, owner), head.leaseVersion, record);
  } catch (error) {
    // Another request took it a moment ago: that one starts the execution.
    if (error instanceof ConflictError)
      return { kind: "held", holder: "another executor, which claimed it first" };
    throw error;
  }
  deps.faults.reached("control:after-claim");
  deps.faults.reached("control:before-execute");
  await deps.orchestrator.execute({ runId, generation, next: openedAction(tail, opener), owner });
  return {
    kind: "started",
    outcome: { kind: "completed", runId, generation, resumeKind: openedKind(opener) },
  };
}

/**
 * The head's automatic-resume record after a completion claims the run. A sweeper completing an
 * opening counts it as one of its resumes (it costs what one does). Its own opening was counted
 * when it was claimed: the first completion after it (its claimer died before executing it) only
 * notes when; a later one finds that claim newer than the opening, so the execution it started may
 * have run and died (a local process's cannot be told from one that never began), and it counts.
 */
function completionRecord(
  deps: ControlDeps,
  head: RunHead,
  opening: Move,
  opener: Opener,
): AutoResumes | undefined {
  if (finishesOwnResume(head.autoResumes, opener)) {
    if (byOf(opening) !== RESUMED_BY.sweeper || head.autoResumes === undefined) return undefined;
    return { count: head.autoResumes.count, lastAt: deps.clock.now().getTime() };
  }
  return recordAfter(deps, head, opening, Date.parse(opener.at), true);
}
