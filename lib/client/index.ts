/**
 * `runlog/client`: runlog's HTTP API as typed calls, for a backend that starts and steers runs on
 * a deployed stack (or `runlog serve`). It loads no AWS SDK client and no HTTP framework: fetch,
 * and the SigV4 signer with the credential chain only once a client signs.
 */
import "../requireNode.ts";

export type { EventsPage, TruncatedEvent } from "../api/eventPage.ts";
export type { ListedEvent } from "../api/followRun.ts";
export type { ReplayBatchReport, ReplayBatchRun, ReplayBatchStarted } from "../api/replayBatch.ts";
export type { ReplayFigures } from "../api/replayCompare.ts";
export type { InvalidOutput, RunOutcome } from "../api/types.ts";
export type { BriefCall, ResumePointView, ResumeView } from "../api/views.ts";
export {
  ConflictError,
  CorruptEventError,
  type ErrorFacts,
  ForbiddenError,
  IdempotencyKeyReusedError,
  IdTakenError,
  InvalidInputError,
  type InvalidInputOptions,
  LeaseHeldError,
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
} from "../core/errors.ts";
export type { ResumeKind, ToolCall } from "../core/eventFields.ts";
export type { RunEvent } from "../core/events.ts";
export type { LifecycleEvent, LifecycleType } from "../core/lifecycleSchemas.ts";
export type { Difference, DifferenceKind } from "../core/replayDiff.ts";
export type { RunStatus } from "../core/status.ts";
export type { AwsCredentials, ClientAuth } from "./auth.ts";
export { createClient, RunlogClient } from "./client.ts";
export type { ClientOptions } from "./clientOptions.ts";
export { type ClientError, type ErrorResponse, isClientError } from "./errors.ts";
export type { FollowOptions } from "./follow.ts";
export type { LifecycleStreamOptions } from "./lifecycle.ts";
export type { RetryOptions } from "./retry.ts";
export type {
  ActorInput,
  CallOptions,
  ControlCallOptions,
  EventPageAnswer,
  EventPageInput,
  ForkRunInput,
  ListRunsInput,
  ReplayReportAnswer,
  ResumePointAnswer,
  ResumeRunAnswer,
  ResumeRunInput,
  RunsPage,
  RunView,
  StartReplaysAnswer,
  StartReplaysInput,
  StartRunAnswer,
  StartRunInput,
} from "./types.ts";
