import * as z from "zod";
import type { Method } from "./routes.ts";
import {
  BatchId,
  CallId,
  CancelBody,
  DecisionBody,
  EventQuery,
  EventsQuery,
  ForkBody,
  LastEventId,
  LifecycleId,
  LifecycleQuery,
  ListQuery,
  LiveQuery,
  MessageBody,
  RedriveBody,
  ReplaysBody,
  ResumeBody,
  runId,
  Seq,
  StartBody,
} from "./schemas.ts";

/** Every `error.code` this API answers with (errors.ts, request.ts, localAuth.ts, the route files). */
export const ERROR_CODES = [
  "invalid_input",
  "unknown_model",
  "model_not_allowed",
  "unauthorized",
  "forbidden",
  "forbidden_host",
  "forbidden_origin",
  "not_found",
  "method_not_allowed",
  "conflict",
  "id_taken",
  "run_cancelled",
  "stale",
  "not_resumable",
  "run_in_progress",
  "idempotency_key_reused",
  "payload_too_large",
  "unsupported_media_type",
  "too_many_runs",
  "response_too_large",
  "live_unavailable",
  "lifecycle_unavailable",
  "model_rejected",
  "internal",
  "corrupt_event",
  "index_missing",
  "unavailable",
  "model_unavailable",
] as const;

/** The one shape of every error response (errors.ts ErrorBody). */
export const ErrorBodySchema = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    field: z.string().optional(),
    reason: z.string().optional(),
    runId: z.string().optional(),
    seq: z.number().int().optional(),
    generation: z.number().int().optional(),
    cap: z.number().int().optional(),
    id: z
      .string()
      .optional()
      .meta({ description: "An `id_taken`'s id: the run id or fork id chosen, which names a different run" }),
    differences: z.array(z.string()).optional().meta({
      description: "An `id_taken`'s differences: what sets the stored run apart from the one asked for",
    }),
    spec: z.string().optional().meta({
      description: "An `unknown_model`'s or `model_not_allowed`'s model spec, as the request named it",
    }),
    allowed: z
      .array(z.string())
      .optional()
      .meta({ description: "A `model_not_allowed`'s allow list: the patterns a model spec must match here" }),
    prefixes: z
      .array(z.string())
      .optional()
      .meta({ description: "An `unknown_model`'s known prefixes: those a provider serves here" }),
  }),
});

/** What one route takes and answers, from the same schemas its handler validates with. */
export interface RouteSpec {
  /** The operation's name, as a generated client calls it. */
  operationId: string;
  summary: string;
  /** Path parameters by name (hono `:name`), each with the schema its value must match. */
  params?: Record<string, z.ZodType>;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Success statuses and what each means. */
  ok: Record<number, string>;
  /** Error statuses this route answers beyond those its inputs imply (400, 401, 403 under `runlog serve`, 404, 413, 415). */
  errors?: number[];
  /** Takes an Idempotency-Key header. */
  idempotent?: boolean;
  /**
   * Answers `text/event-stream` instead of JSON; `lastEventId` is the schema its handler checks the
   * Last-Event-ID header with (an EventSource's reconnect), `means` what the header names.
   */
  stream?: { lastEventId: z.ZodType; means: string };
  /** Served without authentication (the document itself). */
  public?: boolean;
  /** What the success answers' Location header names, where they carry one. */
  location?: string;
}

const run = { id: runId("run id") };

/** Every route of createApp (the viewer's HTML pages aside), keyed by method and hono path. */
export const ROUTE_SPECS: Record<string, Partial<Record<Method, RouteSpec>>> = {
  "/runs": {
    POST: {
      operationId: "startRun",
      summary: "Start a run",
      body: StartBody,
      ok: { 202: "started", 200: "an Idempotency-Key repeat: the run that exists, nothing started" },
      errors: [409, 429],
      idempotent: true,
    },
    GET: {
      operationId: "listRuns",
      summary: "List runs, newest first",
      query: ListQuery,
      ok: { 200: "a page of runs" },
      // `parent` or `childrenOf` naming a run the caller cannot see.
      errors: [404],
    },
  },
  "/runs/redrive": {
    POST: {
      operationId: "redrive",
      summary: "Resume failed runs",
      body: RedriveBody,
      ok: { 202: "resumed", 200: "a dry run: what would be resumed" },
      // An admin's: 403 forbidden to any other caller.
      errors: [403],
    },
  },
  "/runs/replays": {
    POST: {
      operationId: "startReplays",
      summary:
        "Replay recorded runs on a model as a batch (each replay a run of its own, `<batchId>.<i>`); Location names the report",
      body: ReplaysBody,
      ok: { 202: "started", 200: "an Idempotency-Key repeat: the batch that exists, nothing started" },
      errors: [409, 429],
      idempotent: true,
      location: "The batch's report (GET /replays/{batchId}), under the prefix the API is served at",
    },
  },
  "/replays/:batchId": {
    GET: {
      operationId: "getReplayReport",
      summary:
        "A replay batch's report, compared on read; a replay that completed a turn with recorded messages left is sent the next",
      params: { batchId: BatchId },
      ok: { 200: "the report" },
      errors: [404],
    },
  },
  "/runs/:id": {
    GET: { operationId: "getRun", summary: "A run's outcome", params: run, ok: { 200: "the outcome" } },
  },
  "/runs/:id/resume-point": {
    GET: {
      operationId: "getResumePoint",
      summary: "Where a run would resume",
      params: run,
      ok: { 200: "the resume point" },
    },
  },
  "/runs/:id/events": {
    GET: {
      operationId: "listEvents",
      summary: "A run's events after a seq; `wait` long-polls",
      params: run,
      query: EventsQuery,
      ok: { 200: "a page of events" },
    },
  },
  "/runs/:id/events/:seq": {
    GET: {
      operationId: "getEvent",
      summary: "One event, or one part of a large one",
      params: { ...run, seq: Seq },
      query: EventQuery,
      ok: { 200: "the event" },
    },
  },
  "/runs/:id/live": {
    GET: {
      operationId: "followRun",
      summary: "A run's events as they happen (server-sent events, `id` is the seq; Last-Event-ID resumes)",
      params: run,
      query: LiveQuery,
      ok: { 200: "the event stream" },
      errors: [404],
      stream: {
        lastEventId: LastEventId,
        means: "The seq of the last event received: the stream goes on after it.",
      },
    },
  },
  "/lifecycle": {
    GET: {
      operationId: "followLifecycle",
      summary:
        "The lifecycle events of this server's runs as they happen (server-sent events: `id` is the event's id, `event` its detail-type, `data` its detail; Last-Event-ID resumes, `missed` says the events after it are no longer kept); a deployed API answers 404 lifecycle_unavailable",
      query: LifecycleQuery,
      ok: { 200: "the event stream" },
      errors: [404],
      stream: {
        lastEventId: LifecycleId,
        means:
          "The id of the last lifecycle event received (RUN_ID/SEQ, as each event's `id`): the stream goes on after it.",
      },
    },
  },
  "/runs/:id/resume": {
    POST: {
      operationId: "resumeRun",
      summary: "Resume a run",
      params: run,
      body: ResumeBody,
      errors: [409],
      ok: { 202: "resumed", 200: "already completed: its outcome" },
    },
  },
  "/runs/:id/fork": {
    POST: {
      operationId: "forkRun",
      summary: "Fork a run at a seq",
      params: run,
      body: ForkBody,
      // 429: the owner's cap of running runs (a fork that goes on, a message to a resting run).
      errors: [409, 429],
      ok: { 202: "the fork, started" },
      idempotent: true,
    },
  },
  "/runs/:id/messages": {
    POST: {
      operationId: "sendMessage",
      summary: "Send a run a message",
      params: run,
      body: MessageBody,
      // 429: the owner's cap of running runs (a fork that goes on, a message to a resting run).
      errors: [409, 429],
      ok: { 202: "resumed" },
      idempotent: true,
    },
  },
  "/runs/:id/approvals/:callId": {
    POST: {
      operationId: "decide",
      summary: "Approve or reject a tool call waiting for a decision",
      params: { ...run, callId: CallId },
      body: DecisionBody,
      errors: [409],
      ok: { 202: "decided" },
      idempotent: true,
    },
  },
  "/runs/:id/cancel": {
    POST: {
      operationId: "cancelRun",
      summary: "Cancel a run",
      params: run,
      body: CancelBody,
      errors: [409],
      ok: { 200: "cancelled" },
      idempotent: true,
    },
  },
  "/openapi.json": {
    GET: {
      operationId: "getOpenApi",
      summary: "This document",
      ok: { 200: "the OpenAPI document" },
      public: true,
    },
  },
};
