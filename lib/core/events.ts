import * as z from "zod";
import { LIMIT_NAMES, LimitsSchema } from "./budget.ts";
import {
  CancelledSchema,
  ExecutionStoppedSchema,
  GivenUpSchema,
  PausedSchema,
  ResumedSchema,
  ToolDecidedSchema,
} from "./controlEvents.ts";
import {
  CallParentSchema,
  eventBase,
  ForkParentSchema,
  IdempotencyKeySchema,
  OwnerSchema,
  ToolCallSchema,
  UsageSchema,
} from "./eventFields.ts";
import { McpToolSchema } from "./mcpTools.ts";
import { JsonValueSchema, MetadataSchema } from "./metadata.ts";
import { ModelSettingsSchema } from "./modelSettings.ts";
import { ToolResultSchema, ToolStartedSchema, TransferredSchema } from "./toolEvents.ts";

/*
 * The events of a run's log (zod, one discriminated union on `type`) and their types: the run's
 * start, its messages, model turns and budget here; a tool call's events in toolEvents.ts, the
 * events that steer or rest a run in controlEvents.ts, the schema version in eventEnvelope.ts, and
 * the envelope every event carries and the values their fields hold in eventFields.ts.
 */

export const RunStartedSchema = z.object({
  ...eventBase,
  type: z.literal("run_started"),
  runId: z.string().min(1),
  agent: z.string().min(1),
  /** Model spec, e.g. `scripted:demo` or `openai:gpt-4.1-mini`. */
  model: z.string().min(1),
  /** The user's first message; part of this event so a run never exists without its input. */
  input: z.string(),
  /**
   * Set on a fork: the run and seq it was copied from. Set on a sub-agent's run (a child): the run
   * and tool call that started it (lib/core/subagents.ts), whose result the child's ending becomes.
   */
  parent: z.union([ForkParentSchema, CallParentSchema]).optional(),
  /** Whose the run is (core/principal.ts): who may see and steer it. Absent on runs started before owners were recorded. */
  owner: OwnerSchema.optional(),
  /** The caller's own JSON object (core/metadata.ts), echoed on every lifecycle event; a fork keeps its parent's. */
  metadata: MetadataSchema.optional(),
  /** The caller's idempotency key for the operation that wrote this event (IdempotencyKeySchema). */
  idempotencyKey: IdempotencyKeySchema.optional(),
  /**
   * The run's budget (lib/core/budget.ts): its agent's limits, lowered by the start's. Absent on
   * runs started before budgets were recorded: those go by their agent's limits.
   */
  limits: LimitsSchema.optional(),
  /** How every model call of the run is made (lib/core/modelSettings.ts): its agent's, changed by the start's. */
  modelSettings: ModelSettingsSchema.optional(),
  /**
   * The tools of the agent's MCP servers, discovered when the run started (lib/core/mcpTools.ts):
   * every model turn of the run, its resumes and forks are sent these, never the servers' lists of
   * the day. Absent when the agent has no MCP servers (or the run started before they existed).
   */
  mcpTools: z.array(McpToolSchema).optional(),
});

export const UserMessageSchema = z.object({
  ...eventBase,
  type: z.literal("user_message"),
  text: z.string(),
});

export const ModelResponseSchema = z.object({
  ...eventBase,
  type: z.literal("model_response"),
  text: z.string(),
  toolCalls: z.array(ToolCallSchema),
  stop: z.string().min(1),
  model: z.string().optional(),
  usage: UsageSchema.optional(),
  ms: z.number().min(0).optional(),
  /** Calls that must be approved by a person before they run. */
  approvals: z.array(z.string().min(1)).optional(),
  /**
   * Of those calls, the ones whose approval expires, by call id: how long (ms) after this event's
   * `at` a call still undecided is answered as rejected (lib/core/approvalExpiry.ts). Recorded
   * here, so the deadline is the log's, whatever the tool says after a deploy.
   */
  approvalTimeouts: z.record(z.string().min(1), z.number().int().min(1)).optional(),
  /**
   * Set on a final answer of an agent with an `output` schema: the value the schema accepted (the
   * answer's JSON, parsed and validated). What the run's outcome gives as its output.
   */
  output: JsonValueSchema.optional(),
});

export const ModelFailedSchema = z.object({
  ...eventBase,
  type: z.literal("model_failed"),
  error: z.object({ name: z.string(), message: z.string() }),
  retryable: z.boolean(),
  /** The model spec that failed (absent on events written before it was recorded). */
  model: z.string().optional(),
});

/**
 * A final answer of an agent with an `output` schema that did not parse as JSON or that the schema
 * did not accept (lib/core/structuredOutput.ts). It is a model turn (it records the text, the model,
 * its usage) and, with `retry`, the message that tells the model the problems and asks again. One
 * event, so no crash can leave an answer unchecked: a log that ends in one with `retry` calls the
 * model again; one without ends the run `invalid_output`, the text kept.
 */
export const OutputRejectedSchema = z.object({
  ...eventBase,
  type: z.literal("output_rejected"),
  /** The answer as the model gave it. */
  text: z.string(),
  /** What was wrong with it, in words (the JSON error, or the schema's issues). */
  problems: z.string().min(1),
  /** Which rejected answer since the latest user input this is: 1, 2, … */
  attempt: z.number().int().min(1),
  /** True: the problems are sent to the model and it answers again. False: that was the last try. */
  retry: z.boolean(),
  model: z.string().optional(),
  usage: UsageSchema.optional(),
  ms: z.number().min(0).optional(),
});

/**
 * The run reached a limit of its budget before a model turn: it rests as `budget_exhausted` until a
 * person resumes it with that limit raised (a `resumed` carrying `limits`).
 */
export const BudgetExhaustedSchema = z.object({
  ...eventBase,
  type: z.literal("budget_exhausted"),
  /** The limit that was reached. */
  limit: z.enum(LIMIT_NAMES),
  /** What the run had used, counted from its log: turns, tokens and (with a price table) US dollars. */
  used: z.object({
    turns: z.number().int().min(0),
    tokens: z.number().int().min(0),
    costUsd: z.number().min(0).optional(),
  }),
  /** The limits in force. */
  limits: LimitsSchema,
});

/**
 * Text of a model response still streaming, saved as it arrives (lib/steps/checkpoint.ts): `text`
 * is what came since the previous one. The fold joins those since the last anchor; the response
 * that follows supersedes them, and a log that ends in them is continued from their text.
 */
export const ResponseProgressSchema = z.object({
  ...eventBase,
  type: z.literal("response_progress"),
  text: z.string().min(1),
});

export const EventSchema = z.discriminatedUnion("type", [
  RunStartedSchema,
  UserMessageSchema,
  ModelResponseSchema,
  ModelFailedSchema,
  OutputRejectedSchema,
  ToolStartedSchema,
  ToolResultSchema,
  TransferredSchema,
  ResumedSchema,
  ToolDecidedSchema,
  CancelledSchema,
  ExecutionStoppedSchema,
  BudgetExhaustedSchema,
  PausedSchema,
  GivenUpSchema,
  ResponseProgressSchema,
]);

export type RunEvent = z.infer<typeof EventSchema>;
export type EventType = RunEvent["type"];
export type EventOf<T extends EventType> = Extract<RunEvent, { type: T }>;
export type RunStarted = EventOf<"run_started">;
export type ModelResponse = EventOf<"model_response">;
export type OutputRejected = EventOf<"output_rejected">;
export type ToolResult = EventOf<"tool_result">;
export type Transferred = EventOf<"transferred">;
export type ToolDecided = EventOf<"tool_decided">;
export type CancelledEvent = EventOf<"cancelled">;
export type ExecutionStopped = EventOf<"execution_stopped">;
export type BudgetExhausted = EventOf<"budget_exhausted">;
export type PausedEvent = EventOf<"paused">;
export type GivenUpEvent = EventOf<"given_up">;

/** An event before the store gives it a position: what steps build. */
export type NewEvent = RunEvent extends infer E
  ? E extends RunEvent
    ? Omit<E, "v" | "seq" | "at" | "gen">
    : never
  : never;
