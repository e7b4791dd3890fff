import * as z from "zod";
import { LimitsSchema } from "./budget.ts";
import { eventBase, IdempotencyKeySchema, ResumeKindSchema, ToolCallSchema } from "./eventFields.ts";
import { ModelSettingsSchema } from "./modelSettings.ts";

/*
 * The events that steer or rest a run rather than record its work: resumes, decisions on
 * approvals, cancels, a stop from outside, and the markers of a pause or of the sweeper giving up,
 * with the constants they record. Part of the run's event union (lib/core/events.ts).
 */

export const ResumedSchema = z.object({
  ...eventBase,
  type: z.literal("resumed"),
  generation: z.number().int().min(2),
  kind: ResumeKindSchema,
  description: z.string(),
  /** A model spec that replaces the run's model from here on. */
  model: z.string().optional(),
  /** A new user message this generation starts with (send, fork with input). */
  input: z.string().optional(),
  /**
   * Who resumed: RESUMED_BY's `person` (lib/core/eventConstants.ts) (the CLI, API, approvals), `sweeper` (an automatic
   * recovery), `redrive` (after an outage) or `handoff` (a long run moving to a new execution). Absent in logs written
   * before it existed; any other string is kept as it is.
   */
  by: z.string().min(1).optional(),
  /** The authenticated caller who asked for it (a person's resume, a send, the last decision). */
  actor: z.string().min(1).optional(),
  /** Whom that caller said it acted for: what it claimed, kept beside `actor`, never instead of it. */
  onBehalfOf: z.string().min(1).optional(),
  /** The caller's idempotency key for the operation that wrote this event (IdempotencyKeySchema). */
  idempotencyKey: IdempotencyKeySchema.optional(),
  /** Limits a person raised on resume: they replace the ones named, from here on. */
  limits: LimitsSchema.optional(),
  /** Model settings a resume or fork changed: they replace the ones named, from here on. */
  modelSettings: ModelSettingsSchema.optional(),
});

export const ToolDecidedSchema = z.object({
  ...eventBase,
  type: z.literal("tool_decided"),
  callId: z.string().min(1),
  approved: z.boolean(),
  /** Who decided: the authenticated caller, or DECIDED_BY_TIMEOUT (lib/core/eventConstants.ts) when the approval expired. */
  by: z.string().min(1),
  /** Whom the caller said it decided for (a request body's `by`): kept beside `by`, never instead of it. */
  onBehalfOf: z.string().min(1).optional(),
  reason: z.string().optional(),
  /** The caller's idempotency key for the operation that wrote this event (IdempotencyKeySchema). */
  idempotencyKey: IdempotencyKeySchema.optional(),
});

export const CancelledSchema = z.object({
  ...eventBase,
  type: z.literal("cancelled"),
  /** Who cancelled: the authenticated caller. */
  by: z.string().min(1),
  /** Whom the caller said it cancelled for: kept beside `by`, never instead of it. */
  onBehalfOf: z.string().min(1).optional(),
  reason: z.string().optional(),
  /** The caller's idempotency key for the operation that wrote this event (IdempotencyKeySchema). */
  idempotencyKey: IdempotencyKeySchema.optional(),
});

/**
 * The execution of `generation` was stopped by someone outside runlog (Step Functions'
 * StopExecution from the console or the CLI): runlog's own stops (a cancel) are recorded before
 * they are made, so a stop the log does not explain is this. The run rests `interrupted` and no
 * automatic resume (sweeper, redrive, failure events) moves it: only a person's resume, whose
 * `resumed` event ends the stop.
 */
export const ExecutionStoppedSchema = z.object({
  ...eventBase,
  type: z.literal("execution_stopped"),
  /** The generation whose execution was stopped. */
  generation: z.number().int().min(1),
  /** STOPPED_OUTSIDE. */
  reason: z.string().min(1),
  /** The execution's name. */
  execution: z.string().min(1).optional(),
  /** The error and cause the stopper gave, if any. */
  error: z.string().optional(),
  cause: z.string().optional(),
});

/**
 * A marker: the run came to rest waiting for a person's decision on `calls` (the calls of the open
 * batch that wait, as the model asked for them). Written by whoever rests the run (the Finish step,
 * or the sweeper for a run whose execution died first), once per wait, so the pause is a fact of
 * the log a lifecycle event is derived from. It moves nothing: the log reads as without it.
 */
export const PausedSchema = z.object({
  ...eventBase,
  type: z.literal("paused"),
  calls: z.array(ToolCallSchema).min(1),
});

/**
 * A marker: the sweeper stopped resuming the run automatically after `resumes` resumes since the
 * latest new message; it waits for a person (a resume, a send). It moves nothing: the log reads as
 * without it.
 */
export const GivenUpSchema = z.object({
  ...eventBase,
  type: z.literal("given_up"),
  resumes: z.number().int().min(0),
});
