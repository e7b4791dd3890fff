import * as z from "zod";
import type { Method } from "./routes.ts";
import {
  CallId,
  CancelBody,
  DecisionBody,
  EventQuery,
  EventsQuery,
  ForkBody,
  IdempotencyKey,
  ListQuery,
  LiveQuery,
  MessageBody,
  RedriveBody,
  ResumeBody,
  runId,
  Seq,
  StartBody,
} from "./schemas.ts";

/** Every `error.code` this API answers with (errors.ts, request.ts, localAuth.ts, the route files). */
export const ERROR_CODES = [
  "invalid_input",
  "unauthorized",
  "forbidden",
  "forbidden_host",
  "forbidden_origin",
  "not_found",
  "method_not_allowed",
  "conflict",
  "not_resumable",
  "run_in_progress",
  "payload_too_large",
  "unsupported_media_type",
  "too_many_runs",
  "response_too_large",
  "live_unavailable",
  "internal",
  "index_missing",
  "unavailable",
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
  /** Error statuses this route answers beyond those its inputs imply (400, 401, 404, 413, 415). */
  errors?: number[];
  /** Takes an Idempotency-Key header. */
  idempotent?: boolean;
  /** Answers `text/event-stream` instead of JSON. */
  stream?: boolean;
  /** Served without authentication (the document itself). */
  public?: boolean;
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
    },
  },
  "/runs/redrive": {
    POST: {
      operationId: "redrive",
      summary: "Resume failed runs",
      body: RedriveBody,
      ok: { 202: "resumed", 200: "a dry run: what would be resumed" },
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
      stream: true,
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
      errors: [409],
      ok: { 202: "the fork, started" },
    },
  },
  "/runs/:id/messages": {
    POST: {
      operationId: "sendMessage",
      summary: "Send a run a message",
      params: run,
      body: MessageBody,
      errors: [409],
      ok: { 202: "resumed" },
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

/** `/runs/:id` (hono) as `/runs/{id}` (OpenAPI). */
export const openApiPath = (path: string): string => path.replace(/:(\w+)/g, "{$1}");

type Json = Record<string, unknown>;

/** The version of the HTTP API (not of the package): it changes when a route changes incompatibly. */
export const API_VERSION = "1.0.0";

/** The OpenAPI 3.1 document of the HTTP API, generated from ROUTE_SPECS and the schemas in it. */
export function openApiDocument(): Json {
  const registry = z.registry<{ id: string }>();
  registry.add(ErrorBodySchema, { id: "Error" });
  const named = new Map<z.ZodType, string>([[ErrorBodySchema, "Error"]]);
  for (const [path, methods] of Object.entries(ROUTE_SPECS)) {
    for (const [method, spec] of Object.entries(methods)) {
      if (spec.body && !named.has(spec.body)) {
        const id = `${spec.operationId[0]?.toUpperCase()}${spec.operationId.slice(1)}Body`;
        registry.add(spec.body, { id });
        named.set(spec.body, id);
      }
    }
  }
  const components = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
    uri: (id) => `#/components/schemas/${id}`,
  }).schemas;
  for (const schema of Object.values(components)) {
    delete (schema as Json).$schema;
    delete (schema as Json).$id;
  }
  const schemaOf = (schema: z.ZodType): Json => {
    const id = named.get(schema);
    if (id !== undefined) return { $ref: `#/components/schemas/${id}` };
    const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json;
    delete json.$schema;
    return json;
  };
  const paths: Record<string, Json> = {};
  for (const [path, methods] of Object.entries(ROUTE_SPECS)) {
    const item: Json = {};
    for (const [method, spec] of Object.entries(methods)) {
      item[method.toLowerCase()] = operation(path, spec, schemaOf);
    }
    paths[openApiPath(path)] = item;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "runlog HTTP API",
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
      version: API_VERSION,
      description:
        "Durable, resumable AI-agent runs. Generated from the zod schemas the routes validate with (lib/http/openapi.ts).",
    },
    servers: [
      { url: "/", description: "The API's base URL: `runlog serve`'s address or the deployed stage URL" },
    ],
    security: [{ sigv4: [] }, { bearer: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        sigv4: {
          type: "apiKey",
          in: "header",
          name: "Authorization",
          description:
            "AWS Signature Version 4 (service execute-api), as API Gateway's IAM authorization checks it.",
          "x-amazon-apigateway-authtype": "awsSigv4",
        },
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "A JWT (an API Gateway JWT authorizer) or the token `runlog serve` prints.",
        },
      },
      responses: {
        Error: {
          description: "An error: `code` says which, `field` names bad input",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        },
      },
    },
  };
}

function operation(path: string, spec: RouteSpec, schemaOf: (s: z.ZodType) => Json): Json {
  const parameters: Json[] = [];
  for (const [name, schema] of Object.entries(spec.params ?? {})) {
    parameters.push({ name, in: "path", required: true, schema: schemaOf(schema) });
  }
  for (const [name, schema] of Object.entries(spec.query?.shape ?? {})) {
    const optional = (schema as z.ZodType).safeParse(undefined).success;
    parameters.push({ name, in: "query", required: !optional, schema: schemaOf(schema as z.ZodType) });
  }
  if (spec.idempotent) {
    parameters.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description: "The same key again answers the run it started (200) instead of starting another.",
      schema: schemaOf(IdempotencyKey),
    });
  }
  if (spec.stream) {
    parameters.push({
      name: "Last-Event-ID",
      in: "header",
      required: false,
      description: "The seq of the last event received: the stream goes on after it.",
      schema: { type: "string", pattern: "^\\d{1,16}$" },
    });
  }
  const responses: Json = {};
  for (const [status, description] of Object.entries(spec.ok)) {
    responses[status] = {
      description,
      content: spec.stream
        ? { "text/event-stream": { schema: { type: "string" } } }
        : { "application/json": { schema: { type: "object" } } },
    };
  }
  for (const status of errorStatuses(path, spec)) {
    responses[status] = { $ref: "#/components/responses/Error" };
  }
  responses["5XX"] = { $ref: "#/components/responses/Error" };
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.public ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(spec.body
      ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: schemaOf(spec.body) } },
          },
        }
      : {}),
    responses,
  };
}

/** The 4xx statuses a route answers: those its inputs imply, then its own. */
function errorStatuses(path: string, spec: RouteSpec): number[] {
  const statuses = new Set<number>();
  if (spec.params || spec.query || spec.body) statuses.add(400);
  if (!spec.public) statuses.add(401);
  if (path.includes(":id")) statuses.add(404);
  statuses.add(405);
  if (spec.body) {
    statuses.add(413);
    statuses.add(415);
  }
  for (const status of spec.errors ?? []) statuses.add(status);
  return [...statuses].sort((a, b) => a - b);
}
