import { classify } from "../core/classify.ts";
import { ConflictError, InvalidInputError } from "../core/errors.ts";
import type { StepDeps } from "./deps.ts";
import { writeNext } from "./writeNext.ts";

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
  return writeNext<{ cancelled: boolean }>(deps, request.runId, "any", (events, facts) => {
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
      result: () => ({ cancelled: true }),
    };
  });
}
