import { dueApprovals, type ExpiringApproval } from "../core/approvalExpiry.ts";
import { classify } from "../core/classify.ts";
import { ConflictError, InvalidInputError, LeaseHeldError, NotFoundError } from "../core/errors.ts";
import { APPROVAL_EXPIRED, DECIDED_BY_TIMEOUT } from "../core/eventConstants.ts";
import type { ToolDecided } from "../core/events.ts";
import { assertSameKeyed, keyedEvent } from "../core/idempotency.ts";
import type { ControlDeps } from "./deps.ts";
import { expireRun } from "./expireApprovals.ts";
import { openGeneration } from "./generation/open.ts";
import { type ResumeResult, resumeResult } from "./generation/outcome.ts";
import { readTail } from "./logReads.ts";
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
  /** The caller's key for this decision, recorded on `tool_decided`: the same key again answers what it did. */
  idempotencyKey?: string;
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
  if (request.by.trim() === "")
    throw new InvalidInputError("a decision needs a non-empty `by`", { field: "by" });
  const waiting = await writeNext<number | ResumeResult | ExpiringApproval>(
    deps,
    request.runId,
    "any",
    (events, facts) => {
      // Under the seq lock, on the whole log: a decision made with this key before answers as it did then.
      const key = request.idempotencyKey;
      const keyed = key === undefined ? undefined : keyedEvent(events, key);
      if (key !== undefined && keyed !== undefined) {
        assertSameKeyed(request.runId, key, keyed, "tool_decided", decisionFields(request));
        return { done: decidedBefore(request.runId, events, keyed.seq) };
      }
      if (facts.cancelled) throw new ConflictError(`run ${request.runId} was cancelled; nothing to decide`);
      // A damaged log is refused whole, as a resume or a message is: nothing is written into it.
      if (facts.problem) {
        throw new ConflictError(
          `run ${request.runId} is malformed at seq ${facts.problem.seq} (${facts.problem.message}); nothing to decide`,
          { runId: request.runId, seq: facts.problem.seq },
        );
      }
      const batch = facts.batch;
      const call = batch?.open ? batch.response.toolCalls.find((c) => c.id === request.callId) : undefined;
      if (!batch || !call || !batch.needsApproval.has(call.id)) {
        const point = classify(events);
        const open =
          !point.resumable && point.waitingToolCalls ? point.waitingToolCalls.map((c) => c.id) : [];
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
            (earlier.onBehalfOf === undefined ? "" : ` for ${earlier.onBehalfOf}`) +
            differingDetail(earlier, request),
        );
      }
      // Past its deadline the call is the expiry's, recorded or not: the decision comes too late.
      const expired = dueApprovals(facts, deps.clock.now().getTime()).find((due) => due.call.id === call.id);
      if (expired) return { done: expired };
      // The last decision resumes the run at once: one this process could not execute (its agent
      // not here, its model not buildable here) is refused with nothing written, the run as it was.
      if (facts.agent !== undefined) deps.agents(facts.agent);
      if (facts.model !== undefined) deps.models(facts.model);
      return {
        append: {
          type: "tool_decided",
          callId: call.id,
          approved: request.approved,
          by: request.by,
          ...(request.onBehalfOf === undefined ? {} : { onBehalfOf: request.onBehalfOf }),
          ...(request.reason === undefined ? {} : { reason: request.reason }),
          ...(request.idempotencyKey === undefined ? {} : { idempotencyKey: request.idempotencyKey }),
        },
        result: (event) => waitingAfter([...events, event]),
      };
    },
  );
  if (typeof waiting === "object" && "expiresAt" in waiting) {
    // Record the expiry the sweep (or serve's timer) has not recorded yet, and go on as it would.
    await expireRun(deps, request.runId);
    throw new ConflictError(
      `call ${request.callId} of run ${request.runId} waited past its approval deadline ` +
        `(${new Date(waiting.expiresAt).toISOString()}): it is answered as rejected by ${DECIDED_BY_TIMEOUT} (${APPROVAL_EXPIRED})`,
      { runId: request.runId },
    );
  }
  deps.faults.reached("decide:after-append");
  if (typeof waiting !== "number") return waiting;
  if (waiting > 0) return { resumed: false, waiting };
  try {
    return resumeResult(
      await openGeneration(deps, {
        kind: "decide",
        runId: request.runId,
        actor: request.by,
        ...(request.onBehalfOf === undefined ? {} : { onBehalfOf: request.onBehalfOf }),
      }),
    );
  } catch (error) {
    // The same decision again (a redelivered event, a retried request) while the resume it made is
    // executing: that execution is what this decision asked for, so it answers as the first did.
    // Only a resume opened after this call's decision is: one before it is the pause's own generation,
    // still giving back its lease, and the person is told to try again.
    if (!(error instanceof LeaseHeldError)) throw error;
    const { events } = await readTail(deps, request.runId);
    const decided = events.findLast((e) => e.type === "tool_decided" && e.callId === request.callId);
    const opened = events.findLast((e) => e.type === "resumed");
    if (decided === undefined || opened?.type !== "resumed" || opened.seq < decided.seq) throw error;
    return {
      resumed: true,
      runId: request.runId,
      generation: opened.generation,
      kind: opened.kind,
      opened: false,
    };
  }
}

/** The fields that make a decision the one it is: a keyed retry must repeat them. */
const decisionFields = (request: DecisionRequest) => ({
  callId: request.callId,
  approved: request.approved,
  by: request.by,
  onBehalfOf: request.onBehalfOf,
  reason: request.reason,
});

/**
 * What a decision recorded at `seq` came to: the generation the run resumed with after it, or,
 * when it has not resumed since (or that resume ends the log), the calls still waiting (none: the
 * retry completes the resume, as an unkeyed retry does).
 */
function decidedBefore(
  runId: string,
  events: Parameters<typeof classify>[0],
  seq: number,
): number | ResumeResult {
  const resumed = events.find((event) => event.seq > seq && event.type === "resumed");
  // A resume that ends the log may never have executed (a crash after its append): complete it.
  if (resumed?.type !== "resumed" || resumed === events.at(-1)) return waitingAfter(events);
  return { resumed: true, runId, generation: resumed.generation, kind: resumed.kind, opened: false };
}

/** Calls still waiting for a decision in a log. */
function waitingAfter(events: Parameters<typeof classify>[0]): number {
  const after = classify(events);
  return !after.resumable && after.reason === "awaiting_approval" ? (after.waitingToolCalls?.length ?? 0) : 0;
}

/**
 * When the request repeats the recorded verdict and decider but not the rest, what differs: the
 * same decision again records nothing more only whole, and a bare "already approved" reads as a
 * contradiction to whoever approves twice.
 */
function differingDetail(earlier: ToolDecided, request: DecisionRequest): string {
  if (earlier.approved !== request.approved || earlier.by !== request.by) return "";
  const quoted = (value: string) => JSON.stringify(value);
  // Whom it was for is in the message already (" for X"); the reason is said here when it differs.
  const reasonDiffers = earlier.reason !== request.reason;
  const recorded = !reasonDiffers
    ? ""
    : earlier.reason === undefined
      ? " with no reason"
      : ` with reason ${quoted(earlier.reason)}`;
  const asked = [
    ...(!reasonDiffers
      ? []
      : [request.reason === undefined ? "gives no reason" : `gives reason ${quoted(request.reason)}`]),
    ...(earlier.onBehalfOf === request.onBehalfOf
      ? []
      : [request.onBehalfOf === undefined ? "is for no one else" : `is for ${quoted(request.onBehalfOf)}`]),
  ];
  return `${recorded}, and this request ${asked.join(" and ")}: a decision repeated records nothing more, so repeat it as it was made`;
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
