import * as z from "zod";
import { OwnerSchema, ToolCallSchema } from "./eventFields.ts";
import { MetadataSchema } from "./metadata.ts";
import { RUN_STATUSES, type RunStatus } from "./status.ts";

/**
 * The lifecycle events a run's log implies (lib/core/lifecycle.ts), as published: on AWS on the
 * deployment's own EventBridge bus (source `runlog`, detail-type the `type`), locally to
 * `openLocal({ onLifecycle })`. Their JSON Schemas are docs/reference/lifecycle/*.schema.json.
 * A change of shape that a consumer could trip on is a new `version`.
 */
export const LIFECYCLE_VERSION = 1;

/** The EventBridge source lifecycle events are published under (as runlog's own inbound events). */
export const LIFECYCLE_SOURCE = "runlog";

// Typed as a schema of RunStatus, not as the enum's object of literals: declarations print that
// object in the compiler's own order of the literals, which differs between builds.
const StatusSchema: z.ZodType<RunStatus> = z.enum(RUN_STATUSES as [RunStatus, ...RunStatus[]]);

/** Where to read a value left out of an event because the event would not fit an EventBridge entry. */
export const LogRefSchema = z.object({
  runId: z.string().min(1),
  /** The log event that holds it. */
  seq: z.number().int().min(1),
  /** The deployment's HTTP route for that event, when the publisher knows the API's address. */
  url: z.string().optional(),
});

const common = {
  version: z.literal(LIFECYCLE_VERSION),
  /** `runId/seq`: the same for every delivery of this event, so a consumer can drop repeats. */
  id: z.string().min(1),
  runId: z.string().min(1),
  /** The seq of the log event this reports: events of a run are published in this order. */
  seq: z.number().int().min(1),
  /** When that log event was written (ISO 8601). */
  at: z.string().min(1),
  /** The generation that owns the run once that log event is written. */
  generation: z.number().int().min(1),
  agent: z.string().min(1),
  /** Whose the run is; absent on runs started before owners were recorded. */
  owner: OwnerSchema.optional(),
  /** The status the run is in once that log event is written. */
  status: StatusSchema,
  /** The caller's own data given at the start (a fork's is its parent's). */
  metadata: MetadataSchema.optional(),
};

const CommonSchema = z.object(common);
/** The fields every lifecycle event carries. */
export type LifecycleCommon = z.infer<typeof CommonSchema>;

export const RunStartedDetail = z.object({
  ...common,
  type: z.literal("runlog.RunStarted"),
  model: z.string().min(1),
  /** Set on a fork: the run and seq it was copied from; on a sub-agent's run: the run and tool call that started it. */
  parent: z
    .union([
      z.object({ runId: z.string().min(1), seq: z.number().int().min(1) }),
      z.object({ runId: z.string().min(1), callId: z.string().min(1) }),
    ])
    .optional(),
});

export const RunPausedDetail = z.object({
  ...common,
  type: z.literal("runlog.RunPaused"),
  /** The calls that wait for a person's decision, each with the arguments the model gave it (JSON text). */
  calls: z.array(ToolCallSchema.extend({ arguments: z.string().optional() })),
  /** Set when the calls' arguments were left out to fit the event: read them here. */
  argumentsAt: LogRefSchema.optional(),
});

export const RunCompletedDetail = z.object({
  ...common,
  type: z.literal("runlog.RunCompleted"),
  /** The final answer; absent when it would not fit the event (then read it at `outputAt`). */
  output: z.string().optional(),
  /** The final answer's size as UTF-8 bytes. */
  outputBytes: z.number().int().min(0),
  /** Set when `output` was left out to fit the event: where to read it. */
  outputAt: LogRefSchema.optional(),
});

/** Why a run failed: a recorded model failure, or a final response that resume cannot go on from. */
export const FailureReasonSchema = z.enum([
  "model_failed",
  "refused",
  "context_full",
  "unknown_stop",
  /** A limit of the run's budget was reached: a person resumes it with the limit raised. */
  "budget_exhausted",
  /** Its execution was stopped outside runlog (the Step Functions console): a person resumes it. */
  "stopped_outside",
  /** The final answer did not fit the agent's output schema after every try (`message`: the problems). */
  "invalid_output",
]);

export const RunFailedDetail = z.object({
  ...common,
  type: z.literal("runlog.RunFailed"),
  reason: FailureReasonSchema,
  /** What happened, in words (the model's error message, clipped). */
  message: z.string(),
  /** With `model_failed`: the error's name (ModelUnavailableError, ModelRejectedError …). */
  error: z.string().optional(),
  /** Whether a redrive would try the run again (a model outage, not a rejected request). */
  retryable: z.boolean(),
});

export const RunCancelledDetail = z.object({
  ...common,
  type: z.literal("runlog.RunCancelled"),
  /** The authenticated caller who cancelled. */
  by: z.string().min(1),
  onBehalfOf: z.string().min(1).optional(),
  reason: z.string().optional(),
});

export const RunResumedDetail = z.object({
  ...common,
  type: z.literal("runlog.RunResumed"),
  /** Who resumed: `person` (API, CLI, a decision, a new message), `event` (runlog.ResumeRun), `sweeper`, `redrive`, `timeout` (an approval expired), `subagent` (a child run answered); `unknown` on logs that did not record it. Switch on it with a default: a later version may add one. */
  by: z.string().min(1),
  /** The authenticated caller who asked, when a caller did. */
  actor: z.string().min(1).optional(),
  onBehalfOf: z.string().min(1).optional(),
  /** What the new generation does first (call_model, run_tools …). */
  kind: z.string().min(1),
  /** Whether it resumed with a new user message (a send). */
  newMessage: z.boolean(),
});

export const RunGivenUpDetail = z.object({
  ...common,
  type: z.literal("runlog.RunGivenUp"),
  /** The automatic resumes spent since the latest new message: the run now waits for a person. */
  resumes: z.number().int().min(0),
});

export const LifecycleEventSchema = z.discriminatedUnion("type", [
  RunStartedDetail,
  RunPausedDetail,
  RunCompletedDetail,
  RunFailedDetail,
  RunCancelledDetail,
  RunResumedDetail,
  RunGivenUpDetail,
]);

/** One lifecycle event of a run: the `detail` of an EventBridge entry whose detail-type is its `type`. */
export type LifecycleEvent = z.infer<typeof LifecycleEventSchema>;
export type LifecycleType = LifecycleEvent["type"];

/** Every detail-type, with its schema, in the order the docs list them. */
export const LIFECYCLE_SCHEMAS = {
  "runlog.RunStarted": RunStartedDetail,
  "runlog.RunPaused": RunPausedDetail,
  "runlog.RunCompleted": RunCompletedDetail,
  "runlog.RunFailed": RunFailedDetail,
  "runlog.RunCancelled": RunCancelledDetail,
  "runlog.RunResumed": RunResumedDetail,
  "runlog.RunGivenUp": RunGivenUpDetail,
} as const satisfies Record<LifecycleType, z.ZodType>;
