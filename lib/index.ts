/**
 * `runlog`: define agents and tools, and run them durably. Everything a program
 * needs is exported here; anything not exported is internal and may change.
 * The CDK construct is `runlog/cdk`, the HTTP app `runlog/http`, test helpers `runlog/testing`.
 */
import "./requireNode.ts";

export { type AgentToolOptions, agentAsTool } from "./agents/agentAsTool.ts";
export { type AgentDefinition, defineAgent, type OutputOf } from "./agents/defineAgent.ts";
export { DEFAULT_TOOL_TIMEOUT_MS, defineTool, type ToolDefinition } from "./agents/defineTool.ts";
export type { AgentFactory } from "./agents/registry.ts";
export {
  EVENTS_DEFAULT_LIMIT,
  EVENTS_MAX_LIMIT,
  type EventPageRequest,
  type EventsPage,
  PAGE_MIN_BYTES,
  type TruncatedEvent,
} from "./api/eventPage.ts";
export {
  LIFECYCLE_KEPT,
  LifecycleFeed,
  type LifecycleReplay,
  type LifecycleSubscriber,
} from "./api/lifecycleFeed.ts";
export type { LiveFeed, LiveListener } from "./api/liveFeed.ts";
export { type LocalOptions, type LocalRunlog, openLocal } from "./api/local.ts";
export { type OpenAICompatibleOptions, openAICompatible } from "./api/openAICompatible.ts";
export {
  type CallKey,
  type Difference,
  type DifferenceKind,
  REPLAY_TOOLS,
  type ReplayedRun,
  type ReplayFigures,
  type ReplayReport,
  type ReplayRequest,
  type ReplayTools,
  type RunScript,
  type RunScriptError,
  type RunScriptTurn,
  type RunSummary,
  replayRuns,
  scriptFromRun,
} from "./api/replay.ts";
export type {
  ReplayBatchReport,
  ReplayBatchRequest,
  ReplayBatchRun,
  ReplayBatchStarted,
} from "./api/replayBatch.ts";
export type { RunComparison } from "./api/replayCompare.ts";
export { type InCharge, type ResumePointAnswer, Runlog } from "./api/runlog.ts";
export type {
  Actor,
  ControlOptions,
  ExpiryReport,
  ForkRequest,
  ForkResult,
  InvalidOutput,
  ListRequest,
  RedriveOutcome,
  RedriveReport,
  RedriveRequest,
  ResumeOutcome,
  ResumeRequest,
  ResumeResult,
  RunOutcome,
  StartRequest,
  StartResult,
  SweepOptions,
  SweepOutcome,
  SweepReport,
} from "./api/types.ts";
export {
  type BudgetFigures,
  DEFAULT_MAX_TURNS,
  LIMIT_NAMES,
  type LimitName,
  type Limits,
  type ModelPrice,
  type PriceTable,
} from "./core/budget.ts";
export type { Classification, NotResumable, NotResumableReason, ResumePoint } from "./core/classify.ts";
export {
  ConflictError,
  CorruptEventError,
  type ErrorCategory,
  type ErrorFacts,
  ForbiddenError,
  IdempotencyKeyReusedError,
  IdTakenError,
  InvalidInputError,
  type InvalidInputOptions,
  LeaseHeldError,
  McpUnavailableError,
  MissingIndexError,
  ModelRejectedError,
  ModelUnavailableError,
  NotFoundError,
  PermanentError,
  RetryableError,
  RunCancelledError,
  RunlogError,
  type RunlogErrorOptions,
  StaleError,
  TooManyRunsError,
  UnauthorizedError,
  UnknownModelError,
} from "./core/errors.ts";
export { SCHEMA_VERSION } from "./core/eventEnvelope.ts";
export {
  KNOWN_STOPS,
  type KnownStop,
  type ResumeKind,
  type ToolCall,
  type Usage,
} from "./core/eventFields.ts";
export type {
  BudgetExhausted,
  CancelledEvent,
  EventOf,
  EventType,
  ModelResponse,
  RunEvent,
  RunStarted,
  ToolDecided,
  ToolResult,
} from "./core/events.ts";
export {
  LIFECYCLE_SCHEMAS,
  LIFECYCLE_SOURCE,
  LIFECYCLE_VERSION,
  type LifecycleEvent,
  LifecycleEventSchema,
  type LifecycleType,
} from "./core/lifecycleSchemas.ts";
export type { ChatMessage } from "./core/messages.ts";
export { type JsonValue, MAX_METADATA_BYTES, type Metadata } from "./core/metadata.ts";
export { MODEL_SETTING_NAMES, type ModelSettingName } from "./core/modelSettingNames.ts";
export type { ModelSettings } from "./core/modelSettings.ts";
export type { CallOutcome, ComparedCall } from "./core/replayCalls.ts";
export type { ResumePlan } from "./core/resumePlan.ts";
export { RUN_STATUSES, type RunStatus } from "./core/status.ts";
export {
  DEFAULT_OUTPUT_RETRIES,
  MAX_OUTPUT_RETRIES,
  type OutputFormat,
  type OutputSpec,
  outputInstruction,
} from "./core/structuredOutput.ts";
export type { ForkPoint, Lease, RunHead, RunPage } from "./ports/eventStore.ts";
export type { McpHttpServer, McpServer, McpStdioServer } from "./ports/mcp.ts";
export type {
  Model,
  ModelFactory,
  ModelProviders,
  ModelReply,
  ModelRequest,
  ToolSpec,
} from "./ports/model.ts";
export type { ExecutionReport, Observer } from "./ports/runtime.ts";
export type { Agent, AgentContext, Tool, ToolContext } from "./ports/tool.ts";
