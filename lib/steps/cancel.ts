import { classify } from "../core/classify.ts";
import { ConflictError, InvalidInputError } from "../core/errors.ts";
import type { CancelledEvent, RunEvent } from "../core/events.ts";
import { assertSameKeyed, keyedEvent } from "../core/idempotency.ts";
import type { ControlDeps } from "./deps.ts";
import { loadRun } from "./logReads.ts";
import { expireRun } from "./retention.ts";
import { answerParent } from "./subagents/answer.ts";
import { writeNext } from "./writeNext.ts";

type Outcome = { cancelled: boolean; event: CancelledEvent };

export interface CancelRequest {
  runId: string;
  /** Who cancels: the authenticated caller. */
  by: string;
  /** Whom the caller says it cancels for, recorded beside `by`. */
  onBehalfOf?: string;
  reason?: string;
  /** The caller's key for this cancel, recorded on `cancelled`: the same key again answers `cancelled: true`. */
  idempotencyKey?: string;
}

/**
 * Append a cancel, which fences the run: steps in flight find it and stop
 * without writing more, and resume reports `cancelled`. Then stop the
 * execution holding the run's lease, so a model call or tool under way is
 * aborted now rather than at its next write. Cancelling twice is harmless, and
 * a repeat finishes what a failed cancel left undone (the status, the stop); a
 * run that already ended cannot be cancelled.
 */
export async function cancelRun(deps: ControlDeps, request: CancelRequest): Promise<{ cancelled: boolean }> {
  if (request.by.trim() === "")
    throw new InvalidInputError("a cancel needs a non-empty `by`", { field: "by" });
  const { runId } = request;
  const outcome = await writeNext<Outcome>(deps, runId, "any", (events, facts) => {
    // Under the seq lock, on the whole log: this cancel made before (its answer lost) answers as it did.
    const key = request.idempotencyKey;
    const keyed = key === undefined ? undefined : keyedEvent(events, key);
    if (key !== undefined && keyed !== undefined) {
      assertSameKeyed(runId, key, keyed, "cancelled", {
        by: request.by,
        onBehalfOf: request.onBehalfOf,
        reason: request.reason,
      });
      return { done: { cancelled: true, event: keyed as CancelledEvent } };
    }
    if (facts.cancelled) return { done: { cancelled: false, event: facts.cancelled } };
    const point = classify(events);
    // A run that waits for a person (a decision, a raised budget) has not ended: it may be cancelled.
    const waits = ["awaiting_approval", "awaiting_children", "budget_exhausted"];
    if (!point.resumable && !waits.includes(point.reason)) {
      throw new ConflictError(`run ${runId} already ended (${point.reason}); there is nothing to cancel`);
    }
    return {
      append: {
        type: "cancelled",
        by: request.by,
        ...(request.onBehalfOf === undefined ? {} : { onBehalfOf: request.onBehalfOf }),
        ...(request.reason === undefined ? {} : { reason: request.reason }),
        ...(request.idempotencyKey === undefined ? {} : { idempotencyKey: request.idempotencyKey }),
      },
      result: (event) => ({ cancelled: true, event: event as CancelledEvent }),
    };
  });
  // `ls` reads the head: a resting run (paused, interrupted) has no execution left to record the
  // cancel there. A head that says so already is left alone (a repeat does not move the run up a listing).
  const head = await deps.store.getHead(runId);
  if (head?.status !== "cancelled" || head.lastSeq < outcome.event.seq)
    await deps.store.setStatus(runId, "cancelled", outcome.event.seq);
  await stopExecution(deps, runId, outcome.event, head?.lease?.owner);
  // A cancelled run takes nothing more: its retention runs from its cancel, so a repeated cancel
  // (which finishes what a failed one left undone) sets the same expiry, never a later one.
  await expireRun(deps, runId, "cancelled", new Date(outcome.event.at));
  // Its sub-agents' runs are cancelled with it, and a cancelled sub-agent answers its parent's call.
  const events = await loadRun(deps, runId);
  await cancelChildren(deps, events, request);
  await answerParent(deps, events[0]!, { events });
  return { cancelled: outcome.cancelled };
}

/**
 * Cancel the child runs of the run's sub-agent calls still unanswered (a repeated cancel finishes a
 * cascade cut short): the open batch's, and any a message closed before such messages were refused
 * (plan.ts), whose children may still be paused or running with nobody waiting for them.
 */
async function cancelChildren(deps: ControlDeps, events: readonly RunEvent[], request: CancelRequest) {
  for (const child of unansweredChildren(events)) {
    if (!(await deps.store.getHead(child))) continue;
    try {
      await cancelRun(deps, {
        runId: child,
        by: request.by,
        ...(request.onBehalfOf === undefined ? {} : { onBehalfOf: request.onBehalfOf }),
        reason: `its parent run ${request.runId} was cancelled`,
      });
    } catch (error) {
      // A child that ended first answers (or answered) its call itself.
      if (!(error instanceof ConflictError)) throw error;
    }
  }
}

/** The child runs of sub-agent calls the log never answered, in call order. */
function unansweredChildren(events: readonly RunEvent[]): string[] {
  // By position, not by call id alone: a model may give its calls the same ids turn after turn.
  const waiting = new Map<string, string>();
  for (const event of events) {
    if (event.type === "tool_started" && event.child !== undefined) waiting.set(event.callId, event.child);
    else if (event.type === "tool_result") waiting.delete(event.callId);
  }
  return [...waiting.values()];
}

/**
 * Stop the execution that holds the run, if one runs: on AWS the execution is
 * stopped (its running Lambda sees the cancel in the log and aborts its step);
 * here, an execution of this process is aborted at once.
 */
async function stopExecution(
  deps: ControlDeps,
  runId: string,
  cancel: CancelledEvent,
  owner: string | undefined,
): Promise<void> {
  if (owner === undefined) return;
  const why = cancel.reason === undefined ? "" : `: ${cancel.reason}`;
  await deps.orchestrator.stop(owner, `run ${runId} was cancelled by ${cancel.by}${why}`);
}
