import { classify } from "../core/classify.ts";
import { ConflictError, InvalidInputError } from "../core/errors.ts";
import type { StepDeps } from "./deps.ts";
import { expireRun } from "./retention.ts";
import { writeNext } from "./writeNext.ts";

type Outcome = { cancelled: boolean; seq?: number };

/**
 * Append a cancel, which fences the run: steps in flight find it and stop
 * without writing more, and resume reports `cancelled`. Cancelling twice is
 * harmless; a run that already ended cannot be cancelled.
 */
export async function cancelRun(
  deps: StepDeps,
  request: { runId: string; by: string; reason?: string },
): Promise<{ cancelled: boolean }> {
  if (request.by.trim() === "") throw new InvalidInputError("a cancel needs a non-empty `by`");
  const outcome = await writeNext<Outcome>(deps, request.runId, "any", (events, facts) => {
    if (facts.cancelled) return { done: { cancelled: false } };
    const point = classify(events);
    if (!point.resumable && point.reason !== "awaiting_approval") {
      throw new ConflictError(
        `run ${request.runId} already ended (${point.reason}); there is nothing to cancel`,
      );
    }
    return {
      append: {
        type: "cancelled",
        by: request.by,
        ...(request.reason === undefined ? {} : { reason: request.reason }),
      },
      result: (event) => ({ cancelled: true, seq: event.seq }),
    };
  });
  // `ls` reads the head: a resting run (paused, interrupted) has no execution left to record the cancel there.
  if (outcome.seq !== undefined) await deps.store.setStatus(request.runId, "cancelled", outcome.seq);
  // A cancelled run takes nothing more: its retention starts now (again, for a repeated cancel).
  await expireRun(deps, request.runId, "cancelled");
  return { cancelled: outcome.cancelled };
}
