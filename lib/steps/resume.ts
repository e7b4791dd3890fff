import { type Classification, classify, type NotResumable } from "../core/classify.ts";
import { LeaseHeldError, NotFoundError, StaleError } from "../core/errors.ts";
import type { ResumeKind } from "../core/events.ts";
import { readLog } from "../core/log.ts";
import { restingStatus } from "../core/status.ts";
import type { ControlDeps } from "./deps.ts";
import { assertLeaseFree, leaseFor } from "./lease.ts";
import { nextAction } from "./nextAction.ts";
import { loadRun, writeNext } from "./writeNext.ts";

export interface ResumeRequest {
  runId: string;
  /** A model spec to use from here on instead of the run's. */
  model?: string;
}

export type ResumeResult =
  | { resumed: true; runId: string; generation: number; kind: ResumeKind }
  | { resumed: false; runId: string; classification: NotResumable };

/**
 * Classify the tail; if the run can go on and nobody is executing it, take the
 * lease, append `resumed` with the next generation (the seq race lets exactly
 * one resumer win) and execute from the resume point.
 */
export async function resumeRun(deps: ControlDeps, request: ResumeRequest): Promise<ResumeResult> {
  const events = await loadRun(deps, request.runId);
  const classification = classify(events);
  if (!classification.resumable) return { resumed: false, runId: request.runId, classification };
  if (request.model !== undefined) deps.models(request.model);

  const head = await deps.store.getHead(request.runId);
  if (!head) throw new NotFoundError(`run ${request.runId} has no head record`);
  await assertLeaseFree(deps, head);
  const current = readLog(events).generation;
  const generation = current + 1;
  const owner = deps.orchestrator.leaseOwnerFor({ runId: request.runId, generation });
  await deps.store.claimLease(request.runId, leaseFor(deps, owner), head.leaseVersion);

  let point: Classification;
  try {
    point = await writeNext<Classification>(deps, request.runId, current, (latest) => {
      const now = classify(latest);
      if (!now.resumable) return { done: now };
      return {
        append: {
          type: "resumed",
          generation,
          kind: now.kind,
          description: now.description,
          ...(request.model === undefined ? {} : { model: request.model }),
        },
        result: () => now,
      };
    });
  } catch (error) {
    await deps.store.releaseLease(request.runId, owner, "interrupted");
    if (error instanceof StaleError) {
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
