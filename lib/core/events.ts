import * as z from "zod";
import { LIMIT_NAMES, LimitsSchema } from "./budget.ts";
import { McpToolSchema } from "./mcpTools.ts";
import { JsonValueSchema, MetadataSchema } from "./metadata.ts";
import { ModelSettingsSchema } from "./modelSettings.ts";

/**
 * The persisted event log of a run. Every event carries the schema version `v`,
 * its position `seq` (1, 2, 3 … with no gaps) and the time it was written.
 * Changing a shape means a new version and a decoder for the old one: stored
 * logs are never rewritten.
 */
export const SCHEMA_VERSION = 1;

const base = {
  v: z.literal(SCHEMA_VERSION),
  seq: z.number().int().min(1),
  at: z.string().min(1),
  /**
   * The generation that owns the run once this event is written (a `resumed` event's own). Lets a
   * reader of the log's tail know the generation without reading back to the last `resumed`.
   * Absent on events written before it existed.
   */
  gen: z.number().int().min(1).optional(),
};

export const ToolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  /** The arguments exactly as the model sent them (JSON text, possibly invalid). */
  arguments: z.string(),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** Why a response ended. Known values drive the resume table; any other string is an unknown stop. */
export const KNOWN_STOPS = [
  "stop",
  "tool_calls",
  "max_output",
  "interrupted",
  "refusal",
  "context_full",
] as const;
export type KnownStop = (typeof KNOWN_STOPS)[number];

export const UsageSchema = z.object({
  inputTokens: z.number().int().min(0),
  outputTokens: z.number().int().min(0),
});
export type Usage = z.infer<typeof UsageSchema>;

export const ResumeKindSchema = z.enum([
  "call_model",
  "run_tools",
  "recover_tools",
  "retry_response",
  "continue_response",
  "continue_partial",
]);
export type ResumeKind = z.infer<typeof ResumeKindSchema>;

/** Whose a run is: an IAM principal ARN, a JWT subject (and its tenant), or a local OS user (`local:NAME`). */
/**
 * The key a caller gave a control operation (send, fork, decision, cancel) so that a retry of it
 * is recognised: recorded on the event the operation wrote, and looked up in the log under the seq
 * lock (lib/core/idempotency.ts). Printable ASCII, as an HTTP Idempotency-Key.
 */
export const IdempotencyKeySchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x20-\x7e]+$/, "must be printable ASCII");

/** Where a fork was copied from: its parent run and the last seq copied. */
export const ForkParentSchema = z.object({ runId: z.string().min(1), seq: z.number().int().min(1) });
/** The tool call a sub-agent's run answers: the parent run and the call's id. */
export const CallParentSchema = z.object({ runId: z.string().min(1), callId: z.string().min(1) });
export type ForkParent = z.infer<typeof ForkParentSchema>;
export type CallParent = z.infer<typeof CallParentSchema>;

export const OwnerSchema = z.object({ id: z.string().min(1), tenant: z.string().min(1).optional() });

export const RunStartedSchema = z.object({
  ...base,
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
  ...base,
  type: z.literal("user_message"),
  text: z.string(),
});

export const ModelResponseSchema = z.object({
  ...base,
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
  ...base,
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
  ...base,
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

export const ToolStartedSchema = z.object({
  ...base,
  type: z.literal("tool_started"),
  callId: z.string().min(1),
  name: z.string().min(1),
  /**
   * Set when the call is a sub-agent's (agentAsTool): the id of the child run it starts, derived
   * from this run's id and the call's (lib/core/subagents.ts). The call then has no result until
   * the child ends: its ending is the result, and the run waits for it (`awaiting_children`).
   */
  child: z.string().min(1).optional(),
});

export const ToolResultSchema = z.object({
  ...base,
  type: z.literal("tool_result"),
  callId: z.string().min(1),
  name: z.string().min(1),
  content: z.string(),
  isError: z.boolean(),
  /** Set when runlog answered the call because its run was interrupted, not the tool. */
  interrupted: z.boolean().optional(),
  /**
   * Set when the tool ran again: the call had started before and has no result (its run was
   * interrupted mid-call), and the tool is idempotent, so it was run once more, not answered as
   * interrupted.
   */
  rerun: z.boolean().optional(),
  ms: z.number().min(0).optional(),
});

/**
 * The run went on under another agent: the model of `from` called its `transfer_to_<to>` tool
 * (an agent's `handoffs` option; lib/core/transfers.ts). One event that is both the answer to
 * that call (the model reads it as the call's result, so the conversation stays well-formed) and
 * the change of agent: from the next model call on, `to`'s instructions, tools and model are in
 * force, with the whole history. Named "transfer" in code because "handoff" already names an
 * execution handing a long run to the next one (lib/steps/handoff.ts).
 */
export const TransferredSchema = z.object({
  ...base,
  type: z.literal("transferred"),
  /** The call this answers. */
  callId: z.string().min(1),
  /** The tool the model called (`transfer_to_<to>`). */
  name: z.string().min(1),
  /** The agent that asked for the transfer. */
  from: z.string().min(1),
  /** The agent the run goes on under. */
  to: z.string().min(1),
  /** Why, as the model said it (the call's `reason` argument). */
  reason: z.string().optional(),
  /** The model spec in force from here on: `to`'s model. */
  model: z.string().min(1).optional(),
  /**
   * The tools of `to`'s MCP servers, listed at the transfer (as `run_started.mcpTools` lists the
   * first agent's): the run's MCP tools from here on. Absent: `to` takes none.
   */
  mcpTools: z.array(McpToolSchema).optional(),
});

export const ResumedSchema = z.object({
  ...base,
  type: z.literal("resumed"),
  generation: z.number().int().min(2),
  kind: ResumeKindSchema,
  description: z.string(),
  /** A model spec that replaces the run's model from here on. */
  model: z.string().optional(),
  /** A new user message this generation starts with (send, fork with input). */
  input: z.string().optional(),
  /**
   * Who resumed: RESUMED_BY's `person` (the CLI, API, approvals), `sweeper` (an automatic
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

/** The documented values of a `resumed` event's `by`. */
export const RESUMED_BY = {
  person: "person",
  sweeper: "sweeper",
  handoff: "handoff",
  /** A `runlog.ResumeRun` event on AWS: another backend asked. */
  event: "event",
  /** A redrive: a run whose model call failed for a retryable reason, resumed after the outage. */
  redrive: "redrive",
  /** An approval expired: its calls were answered as rejected by `timeout` and the run went on. */
  timeout: "timeout",
  /** The generation that opens a fork, written with its copy: part of the fork's start. */
  fork: "fork",
  /** A sub-agent's run ended and answered its parent's call (or a parent looked its child up). */
  subagent: "subagent",
} as const;

export const ToolDecidedSchema = z.object({
  ...base,
  type: z.literal("tool_decided"),
  callId: z.string().min(1),
  approved: z.boolean(),
  /** Who decided: the authenticated caller, or DECIDED_BY_TIMEOUT when the approval expired. */
  by: z.string().min(1),
  /** Whom the caller said it decided for (a request body's `by`): kept beside `by`, never instead of it. */
  onBehalfOf: z.string().min(1).optional(),
  reason: z.string().optional(),
  /** The caller's idempotency key for the operation that wrote this event (IdempotencyKeySchema). */
  idempotencyKey: IdempotencyKeySchema.optional(),
});

export const CancelledSchema = z.object({
  ...base,
  type: z.literal("cancelled"),
  /** Who cancelled: the authenticated caller. */
  by: z.string().min(1),
  /** Whom the caller said it cancelled for: kept beside `by`, never instead of it. */
  onBehalfOf: z.string().min(1).optional(),
  reason: z.string().optional(),
  /** The caller's idempotency key for the operation that wrote this event (IdempotencyKeySchema). */
  idempotencyKey: IdempotencyKeySchema.optional(),
});

/** The `by` of a decision runlog recorded because an approval expired (lib/core/approvalExpiry.ts). */
export const DECIDED_BY_TIMEOUT = "timeout";
/** The `reason` of that decision: what the model is told about the call. */
export const APPROVAL_EXPIRED = "approval expired";

/** The reason an `execution_stopped` event records. */
export const STOPPED_OUTSIDE = "execution stopped outside runlog";

/**
 * The execution of `generation` was stopped by someone outside runlog (Step Functions'
 * StopExecution from the console or the CLI): runlog's own stops (a cancel) are recorded before
 * they are made, so a stop the log does not explain is this. The run rests `interrupted` and no
 * automatic resume (sweeper, redrive, failure events) moves it: only a person's resume, whose
 * `resumed` event ends the stop.
 */
export const ExecutionStoppedSchema = z.object({
  ...base,
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
 * The run reached a limit of its budget before a model turn: it rests as `budget_exhausted` until a
 * person resumes it with that limit raised (a `resumed` carrying `limits`).
 */
export const BudgetExhaustedSchema = z.object({
  ...base,
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
 * A marker: the run came to rest waiting for a person's decision on `calls` (the calls of the open
 * batch that wait, as the model asked for them). Written by whoever rests the run (the Finish step,
 * or the sweeper for a run whose execution died first), once per wait, so the pause is a fact of
 * the log a lifecycle event is derived from. It moves nothing: the log reads as without it.
 */
export const PausedSchema = z.object({
  ...base,
  type: z.literal("paused"),
  calls: z.array(ToolCallSchema).min(1),
});

/**
 * A marker: the sweeper stopped resuming the run automatically after `resumes` resumes since the
 * latest new message; it waits for a person (a resume, a send). It moves nothing: the log reads as
 * without it.
 */
export const GivenUpSchema = z.object({
  ...base,
  type: z.literal("given_up"),
  resumes: z.number().int().min(0),
});

/**
 * Text of a model response still streaming, saved as it arrives (lib/steps/checkpoint.ts): `text`
 * is what came since the previous one. The fold joins those since the last anchor; the response
 * that follows supersedes them, and a log that ends in them is continued from their text.
 */
export const ResponseProgressSchema = z.object({
  ...base,
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

/** Result of decoding one stored record. */
export type Decoded = { ok: true; event: RunEvent } | { ok: false; problem: string };

/** Decode one stored record (already JSON-parsed), naming what is wrong when it does not fit. */
export function decodeEvent(raw: unknown): Decoded {
  if (typeof raw === "object" && raw !== null && "v" in raw && raw.v !== SCHEMA_VERSION) {
    return {
      ok: false,
      problem: `unknown schema version ${JSON.stringify(raw.v)} (this runlog reads v${SCHEMA_VERSION})`,
    };
  }
  const parsed = EventSchema.safeParse(raw);
  if (parsed.success) return { ok: true, event: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join(".") : "event";
  return { ok: false, problem: `${where}: ${issue?.message ?? "invalid"}` };
}

/** The types of event this schema version has. */
const EVENT_TYPES: ReadonlySet<string> = new Set(
  EventSchema.options.map((schema) => schema.shape.type.value),
);

/**
 * Decode an event a store holds, already JSON-parsed. What a store holds it wrote itself, as the
 * canonical JSON of an event built by typed code, so only the envelope is checked here (an object
 * of this schema version, of a known type, with a seq and a time), not every field again: a fresh
 * process reads a long log at the cost of JSON.parse, not of the schema. Records from outside (a
 * fixture, an import) go through decodeEvent, which checks every field.
 */
export function decodeStoredEvent(raw: unknown): Decoded {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { ok: false, problem: "event: expected a JSON object" };
  }
  const record = raw as Record<string, unknown>;
  if (record.v !== SCHEMA_VERSION) {
    return {
      ok: false,
      problem:
        record.v === undefined
          ? `v: missing (this runlog reads v${SCHEMA_VERSION})`
          : `unknown schema version ${JSON.stringify(record.v)} (this runlog reads v${SCHEMA_VERSION})`,
    };
  }
  if (typeof record.type !== "string" || !EVENT_TYPES.has(record.type)) {
    return { ok: false, problem: `type: unknown event type ${JSON.stringify(record.type)}` };
  }
  if (typeof record.seq !== "number" || !Number.isInteger(record.seq) || record.seq < 1) {
    return { ok: false, problem: `seq: expected an integer >= 1, got ${JSON.stringify(record.seq)}` };
  }
  if (typeof record.at !== "string" || record.at.length === 0) {
    return { ok: false, problem: `at: expected the time it was written, got ${JSON.stringify(record.at)}` };
  }
  return { ok: true, event: record as RunEvent };
}

/** Give a new event its position, its time and (when known) the generation it leaves the run in. */
export function stamp(event: NewEvent, seq: number, at: Date, gen?: number): RunEvent {
  const stamped = { ...event, v: SCHEMA_VERSION, seq, at: at.toISOString() } as RunEvent;
  return gen === undefined ? stamped : { ...stamped, gen };
}

/** Sort keys, as an event read back, forked or retried may order them differently. */
const sortedKeys = (_: string, value: unknown) =>
  value && typeof value === "object" && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : value;

/**
 * The event as JSON with its keys sorted: the same event always gives the same
 * text, whichever way it was built or read (the store keeps big payloads by its
 * hash; a retried fork recognises the copies it made).
 */
export const canonicalJson = (event: RunEvent): string => canonicalValue(event);

/** Any JSON value with its object keys sorted, as canonicalJson writes events. */
export const canonicalValue = (value: unknown): string => JSON.stringify(value, sortedKeys);
