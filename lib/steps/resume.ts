import { type Classification, classify, type NotResumable } from "../core/classify.ts";
import { LeaseHeldError, NotFoundError, RunCancelledError, StaleError } from "../core/errors.ts";
import type { ResumeKind, RunEvent } from "../core/events.ts";
import { readLog } from "../core/log.ts";
import { type RunStatus, restingStatus } from "../core/status.ts";
import type { ControlDeps } from "./deps.ts";
import { assertLeaseFree, leaseFor } from "./lease.ts";
import { nextAction } from "./nextAction.ts";
import { loadRun, writeNext } from "./writeNext.ts";

export interface ResumeRequest {
  runId: string;
  /** A model spec to use from here on instead of the run's. */
  model?: string;
  /** A new user message: continue the run with it (any state but cancelled or malformed). */
  input?: string;
}

export type ResumeResult =
  | { resumed: true; runId: string; generation: number; kind: ResumeKind }
  | { resumed: false; runId: string; classification: NotResumable };

/** Where a run can take a new message: everything but a run that must not be written to. */
const CLOSED_TO_MESSAGES = new Set(["cancelled", "malformed", "empty"]);

/** How resuming (or sending a message to) this log would start, or why it cannot. */
function plan(events: readonly RunEvent[], input: string | undefined): Classification {
  const classification = classify(events);
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
  const events = await loadRun(deps, request.runId);
  const first = plan(events, request.input);
  if (!first.resumable) return { resumed: false, runId: request.runId, classification: first };
  if (request.model !== undefined) deps.models(request.model);

  const head = await deps.store.getHead(request.runId);
  if (!head) throw new NotFoundError(`run ${request.runId} has no head record`);
  // The log grew after we read it (another resumer ran in between): decide again on the log as it is
  // now, rather than claim the lease of a run that may have finished.
  if (head.lastSeq > events.length && replans > 0) return resumeFrom(deps, request, replans - 1);
  await assertLeaseFree(deps, head);
  const current = readLog(events).generation;
  const generation = current + 1;
  const owner = deps.orchestrator.leaseOwnerFor({ runId: request.runId, generation });
  await deps.store.claimLease(request.runId, leaseFor(deps, owner), head.leaseVersion);

  let point: Classification;
  try {
    point = await writeNext<Classification>(deps, request.runId, current, (latest) => {
      const now = plan(latest, request.input);
      if (!now.resumable) return { done: now };
      return {
        append: {
          type: "resumed",
          generation,
          kind: now.kind,
          description: now.description,
          ...(request.model === undefined ? {} : { model: request.model }),
          ...(request.input === undefined ? {} : { input: request.input }),
        },
        result: () => now,
      };
    });
  } catch (error) {
    await deps.store.releaseLease(request.runId, owner, await restingNow(deps, request.runId));
    if (error instanceof StaleError && !(error instanceof RunCancelledError)) {
      throw new LeaseHeldError(`run ${request.runId} was resumed by another process first`, { cause: error });
    }
    throw error;
  }
  if (!point.resumable) {
    await deps.store.releaseLease(
      request.runId,
      owner,
      restingStatus(await loadRun(deps, request.runId), point),
    );
    return { resumed: false, runId: request.runId, classification: point };
  }
  await deps.orchestrator.execute({ runId: request.runId, generation, next: nextAction(point, true), owner });
  return { resumed: true, runId: request.runId, generation, kind: point.kind };
}

/** The status the log shows now, for a lease given back unused; `interrupted` if the log cannot be read. */
async function restingNow(deps: ControlDeps, runId: string): Promise<RunStatus> {
  try {
    const latest = await loadRun(deps, runId);
    return restingStatus(latest, classify(latest));
  } catch {
    return "interrupted";
  }
}
