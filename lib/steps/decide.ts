import { classify } from "../core/classify.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../core/errors.ts";
import type { ToolDecided } from "../core/events.ts";
import type { ControlDeps } from "./deps.ts";
import { openGeneration } from "./generation/open.ts";
import { type ResumeResult, resumeResult } from "./generation/outcome.ts";
import { writeNext } from "./writeNext.ts";

export interface DecisionRequest {
  runId: string;
  callId: string;
  approved: boolean;
  /** Who decided: the authenticated caller. */
  by: string;
  /** Whom the caller says it decided for, recorded beside `by`. */
  onBehalfOf?: string;
  reason?: string;
}

/**
 * Record a person's decision on a call that waits for approval. When it was the
 * last one waiting, the run resumes by itself: approved calls run, rejected
 * ones are answered with the rejection. The same decision made again (a retry
 * after a crash or a lost answer) records nothing more and completes the resume.
 */
export async function decide(
  deps: ControlDeps,
  request: DecisionRequest,
): Promise<ResumeResult | { resumed: false; waiting: number }> {
  if (request.by.trim() === "") throw new InvalidInputError("a decision needs a non-empty `by`");
  const waiting = await writeNext(deps, request.runId, "any", (events, facts) => {
    if (facts.cancelled) throw new ConflictError(`run ${request.runId} was cancelled; nothing to decide`);
    const batch = facts.batch;
    const call = batch?.open ? batch.response.toolCalls.find((c) => c.id === request.callId) : undefined;
    if (!batch || !call || !batch.needsApproval.has(call.id)) {
      const point = classify(events);
      const open = !point.resumable && point.waitingToolCalls ? point.waitingToolCalls.map((c) => c.id) : [];
      throw new NotFoundError(
        `run ${request.runId} has no call ${request.callId} waiting for approval` +
          (open.length > 0 ? `; waiting: ${open.join(", ")}` : ""),
      );
    }
    const earlier = batch.decisions.get(call.id);
    if (earlier && sameDecision(earlier, request)) return { done: waitingAfter(events) };
    if (earlier) {
      throw new ConflictError(
        `call ${call.id} was already ${earlier.approved ? "approved" : "rejected"} by ${earlier.by}` +
          (earlier.onBehalfOf === undefined ? "" : ` for ${earlier.onBehalfOf}`),
      );
    }
    return {
      append: {
        type: "tool_decided",
        callId: call.id,
        approved: request.approved,
        by: request.by,
        ...(request.onBehalfOf === undefined ? {} : { onBehalfOf: request.onBehalfOf }),
        ...(request.reason === undefined ? {} : { reason: request.reason }),
      },
      result: (event) => waitingAfter([...events, event]),
    };
  });
  deps.faults.reached("decide:after-append");
  if (waiting > 0) return { resumed: false, waiting };
  return resumeResult(
    await openGeneration(deps, {
      kind: "decide",
      runId: request.runId,
      actor: request.by,
      ...(request.onBehalfOf === undefined ? {} : { onBehalfOf: request.onBehalfOf }),
    }),
  );
}

/** Calls still waiting for a decision in a log. */
function waitingAfter(events: Parameters<typeof classify>[0]): number {
  const after = classify(events);
  return !after.resumable && after.reason === "awaiting_approval" ? (after.waitingToolCalls?.length ?? 0) : 0;
}

/** Whether a recorded decision is this request's: the same verdict, by the same person, for the same reason. */
function sameDecision(earlier: ToolDecided, request: DecisionRequest): boolean {
  return (
    earlier.approved === request.approved &&
    earlier.by === request.by &&
    earlier.onBehalfOf === request.onBehalfOf &&
    earlier.reason === request.reason
  );
}
