import * as z from "zod";
import {
  CallId,
  CancelBody,
  DecisionBody,
  IdempotencyKey,
  MessageBody,
  ResumeBody,
  runId,
  StartBody,
} from "../lib/http/schemas.ts";
import { StepInputSchema } from "./stepInput.ts";

/** The envelope EventBridge delivers, around a `detail` of the given shape; `account` is the sender's. */
export function eventBridge<Type extends string, Detail extends z.ZodType>(detailType: Type, detail: Detail) {
  return z.object({
    id: z.string().min(1),
    "detail-type": z.literal(detailType),
    source: z.string(),
    account: z.string().regex(/^\d{12}$/, "must be the sender's 12-digit account id"),
    detail,
  });
}

/** Who a trusted sender says a run is for (`trustedEventSources`): as the HTTP API records an owner. */
export const OwnerDetail = z.strictObject({
  id: z.string().min(1).max(1024),
  tenant: z.string().min(1).max(1024).optional(),
});

/**
 * `runlog.StartRun` (source `runlog`): start a run, validated as POST /runs's body is
 * (lib/http/schemas.ts), plus the `owner` a trusted source may name. Without a `runId` the
 * event's id becomes the run id, so EventBridge's at-least-once delivery and Lambda's retries
 * never start the same request twice.
 */
export const StartRunDetail = StartBody.extend({ owner: OwnerDetail.optional() });

/**
 * `runlog.ResumeRun` (source `runlog`): resume a run, optionally with another model (as POST
 * /runs/{id}/resume's body) or a new message (as POST /runs/{id}/messages's), plus the `owner` a
 * trusted source acts for.
 */
export const ResumeRunDetail = ResumeBody.extend({
  runId: runId("run id"),
  input: MessageBody.shape.message.optional(),
  owner: OwnerDetail.optional(),
});

/**
 * A steering event's envelope: its `id` becomes the control operation's idempotency key (recorded on
 * the event it writes), so it must be one the API would take as an Idempotency-Key.
 */
export function steeringEvent<Type extends string, Detail extends z.ZodType>(
  detailType: Type,
  detail: Detail,
) {
  return eventBridge(detailType, detail).extend({ id: IdempotencyKey });
}

/** What every steering event names: the run, and the owner a trusted source acts for. */
const steered = { runId: runId("run id"), owner: OwnerDetail.optional() };

/** `runlog.SendMessage`: continue a run with a new user message, as POST /runs/{id}/messages's body. */
export const SendMessageDetail = MessageBody.extend(steered);

/** `runlog.Decide`: approve (`approved: true`) or reject a waiting call, as POST /runs/{id}/approvals/{callId}'s body. */
export const DecideDetail = DecisionBody.extend({ ...steered, callId: CallId });

/** `runlog.CancelRun`: cancel a run, as POST /runs/{id}/cancel's body. */
export const CancelRunDetail = CancelBody.extend(steered);

/**
 * What Step Functions emits when an execution ends; `input` is the execution's input as JSON text.
 * `error` and `cause` are what a StopExecution gave (null when nothing was given).
 */
export const ExecutionEndedDetail = z.object({
  executionArn: z.string(),
  name: z.string().nullish(),
  status: z.enum(["FAILED", "TIMED_OUT", "ABORTED"]),
  error: z.string().nullish(),
  cause: z.string().nullish(),
  input: z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "expected the execution input as JSON text" });
        return z.NEVER;
      }
    })
    .pipe(StepInputSchema),
});
