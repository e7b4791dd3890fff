import { type Classification, classifyFacts, type NotResumable } from "../core/classify.ts";
import { LeaseHeldError, NotFoundError, RunCancelledError, StaleError } from "../core/errors.ts";
import { RESUMED_BY, type ResumeKind } from "../core/events.ts";
import type { LogFacts } from "../core/log.ts";
import type { ControlDeps } from "./deps.ts";
import { assertLeaseFree, giveBack, leaseFor } from "./lease.ts";
import { nextAction } from "./nextAction.ts";
import { keepRun } from "./retention.ts";
import { type Decision, type LogView, readTail, viewFacts, writeNext } from "./writeNext.ts";

export interface ResumeRequest {
  runId: string;
  /** A model spec to use from here on instead of the run's. */
  model?: string;
  /** A new user message: continue the run with it (any state but cancelled or malformed). */
  input?: string;
  /** Who resumes, recorded on the `resumed` event (see RESUMED_BY). @default "person" */
  by?: string;
}

export type ResumeResult =
  | { resumed: true; runId: string; generation: number; kind: ResumeKind }
  | { resumed: false; runId: string; classification: NotResumable };

/** Where a run can take a new message: everything but a run that must not be written to. */
const CLOSED_TO_MESSAGES = new Set(["cancelled", "malformed", "empty"]);

/** How resuming (or sending a message to) a log of these facts would start, or why it cannot. */
function plan(facts: LogFacts, input: string | undefined): Classification {
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

/**
 * Classify the tail; if the run can go on and nobody is executing it, take the
 * lease, append `resumed` with the next generation (the seq race lets exactly
 * one resumer win) and execute from the resume point. With `input`, the
 * `resumed` event carries the new user message, closing any call left open.
 */
export function resumeRun(deps: ControlDeps, request: ResumeRequest): Promise<ResumeResult> {
  return resumeFrom(deps, request, 3);
}

/** resumeRun, deciding again (at most `replans` times) when the log grew between reading it and the head. */
async function resumeFrom(deps: ControlDeps, request: ResumeRequest, replans: number): Promise<ResumeResult> {
  // The head and the tail of the log, never all of it: resuming costs the same on any length of run.
  const tail = await readTail(deps, request.runId);
  // Read once, now: a log this process holds grows in place while we wait on the store below.
  const facts = viewFacts(deps, request.runId, tail);
  const seen = lastSeqOf(tail);
  const first = plan(facts, request.input);
  if (!first.resumable) return { resumed: false, runId: request.runId, classification: first };
  if (request.model !== undefined) deps.models(request.model);

  const head = await deps.store.getHead(request.runId);
  if (!head) throw new NotFoundError(`run ${request.runId} has no head record`);
  // The log grew after we read it (another resumer ran in between): decide again on the log as it is
  // now, rather than claim the lease of a run that may have finished.
  if (head.lastSeq > seen && replans > 0) return resumeFrom(deps, request, replans - 1);
  await assertLeaseFree(deps, head);
  const current = facts.generation;
  const generation = current + 1;
  const owner = deps.orchestrator.leaseOwnerFor({ runId: request.runId, generation });
  await deps.store.claimLease(request.runId, leaseFor(deps, owner), head.leaseVersion);
  // Holding the lease, stop a finished run's retention clock before anything is written to it
  // (a run comes to rest, and starts that clock, only while its executor holds the lease).
  await keepRun(deps, request.runId);

  let point: Classification;
  try {
    const decide = (_: unknown, facts: LogFacts): Decision<Classification> => {
      const now = plan(facts, request.input);
      if (!now.resumable) return { done: now };
      return {
        append: {
          type: "resumed",
          generation,
          kind: now.kind,
          description: now.description,
          ...(request.model === undefined ? {} : { model: request.model }),
          ...(request.input === undefined ? {} : { input: request.input }),
          by: request.by ?? RESUMED_BY.person,
        },
        result: () => now,
      };
    };
    // Decided on the tail already read; a lost seq race reads the tail again.
    point = await writeNext(deps, request.runId, current, decide, async (fresh) =>
      fresh ? readTail(deps, request.runId) : tail,
    );
  } catch (error) {
    await giveBack(deps, request.runId, owner);
    if (error instanceof StaleError && !(error instanceof RunCancelledError)) {
      throw new LeaseHeldError(`run ${request.runId} was resumed by another process first`, { cause: error });
    }
    throw error;
  }
  if (!point.resumable) {
    await giveBack(deps, request.runId, owner);
    return { resumed: false, runId: request.runId, classification: point };
  }
  await deps.orchestrator.execute({ runId: request.runId, generation, next: nextAction(point, true), owner });
  return { resumed: true, runId: request.runId, generation, kind: point.kind };
}

const lastSeqOf = (view: LogView) => view.events.at(-1)?.seq ?? 0;
