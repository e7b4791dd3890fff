import {
  ConflictError,
  CorruptEventError,
  ForbiddenError,
  IdempotencyKeyReusedError,
  IdTakenError,
  InvalidInputError,
  LeaseHeldError,
  MissingIndexError,
  ModelNotAllowedError,
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
} from "../core/errors.ts";
import type { ErrorBody } from "../http/errors.ts";

/** What the HTTP answer behind an error said: kept on the error the client throws, as `error.response`. */
export interface ErrorResponse {
  /** The HTTP status. */
  status: number;
  /** The body's `error.code` (`not_resumable`, `forbidden_origin` …), or none when the body was not the API's (a gateway's). */
  code?: string;
  /** Why a run cannot go on (`completed`, `awaiting_approval` …), where the API says. */
  reason?: string;
  /** A 429's cap: the runs one owner may have running at once. */
  cap?: number;
  /** How long the server asked the caller to wait (Retry-After), in milliseconds. */
  retryAfterMs?: number;
}

/** A runlog error the client threw for an HTTP answer: the class by the answer's code, and what the answer said. */
export type ClientError = RunlogError & { readonly response: ErrorResponse };

/**
 * Whether `error` is one the client threw for an HTTP answer, so TypeScript knows its `response`:
 * `if (error instanceof ConflictError && isClientError(error)) error.response.reason`.
 */
export function isClientError(error: unknown): error is ClientError {
  return error instanceof RunlogError && "response" in error;
}

/** The error answer's `error` object, if the body is the API's one error shape. */
function apiError(body: unknown): ErrorBody["error"] | undefined {
  if (typeof body !== "object" || body === null || !("error" in body)) return undefined;
  const error = (body as { error: unknown }).error;
  if (typeof error !== "object" || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === "string" && typeof message === "string" ? (error as ErrorBody["error"]) : undefined;
}

/** A gateway's own answer (API Gateway's `{"message": "Forbidden"}`), or the body's first line. */
function otherMessage(status: number, body: unknown, text: string): string {
  const message = (body as { message?: unknown } | undefined)?.message;
  const said = typeof message === "string" ? message : text.trim().split("\n")[0]?.slice(0, 200);
  return `HTTP ${status}${said ? `: ${said}` : ""}`;
}

/** The class an error code stands for (errors.ts errorAnswer's mapping, read backwards); by status for any other. */
function errorFor(
  status: number,
  code: string | undefined,
  message: string,
  facts: RunlogErrorOptions &
    Pick<ErrorBody["error"], "field" | "cap" | "id" | "differences" | "spec" | "allowed" | "prefixes">,
  idempotencyKey: string | undefined,
): RunlogError {
  const { field, cap, id, differences, spec, allowed, prefixes, ...options } = facts;
  // Every 400 keeps the field the server named (`model` for a refused model spec).
  const invalid = () =>
    new InvalidInputError(message, { ...options, ...(field === undefined ? {} : { field }) });
  switch (code) {
    case "unknown_model":
      return spec === undefined
        ? invalid()
        : withMessage(new UnknownModelError(spec, prefixes ?? []), message);
    case "model_not_allowed":
      return spec === undefined
        ? invalid()
        : withMessage(new ModelNotAllowedError(spec, allowed ?? [], "here"), message);
    case "invalid_input":
    case "payload_too_large":
    case "unsupported_media_type":
    case "response_too_large":
      return invalid();
    case "not_found":
      return new NotFoundError(message, options);
    case "unauthorized":
      return new UnauthorizedError(message, options);
    case "forbidden":
    case "forbidden_host":
    case "forbidden_origin":
      return new ForbiddenError(message, options);
    case "run_in_progress":
      return new LeaseHeldError(message, options);
    case "idempotency_key_reused":
      if (idempotencyKey !== undefined && options.runId !== undefined) {
        return withMessage(
          new IdempotencyKeyReusedError(idempotencyKey, [], { ...options, runId: options.runId }),
          message,
        );
      }
      return new ConflictError(message, options);
    case "id_taken":
      return new IdTakenError(id ?? options.runId ?? "", differences ?? [], message, options);
    case "run_cancelled":
      return new RunCancelledError(message, options);
    case "stale":
      return new StaleError(message, options);
    case "conflict":
    case "not_resumable":
      return new ConflictError(message, options);
    case "model_rejected":
      return new ModelRejectedError(message, options);
    case "model_unavailable":
      return new ModelUnavailableError(message, options);
    case "corrupt_event":
      return withMessage(new CorruptEventError(options.runId ?? "", options.seq ?? 0, ""), message);
    case "too_many_runs":
      return withMessage(new TooManyRunsError("the caller", cap ?? 0, options), message);
    case "index_missing":
      return new MissingIndexError("", "", message, options);
    case "unavailable":
    case "internal":
      return new RetryableError(message, options);
  }
  if (status === 429 || status >= 500) return new RetryableError(message, options);
  if (status === 401) return new UnauthorizedError(message, options);
  if (status === 403) return new ForbiddenError(message, options);
  if (status === 404) return new NotFoundError(message, options);
  if (status === 409) return new ConflictError(message, options);
  if (status === 400 || status === 413 || status === 415) return invalid();
  return new PermanentError(message, options);
}

/** The server's own words, where a class builds its message from facts the answer does not carry. */
function withMessage<E extends Error>(error: E, message: string): E {
  Object.defineProperty(error, "message", { value: message, enumerable: false, writable: true });
  return error;
}

/**
 * The error an HTTP error answer becomes: the class its `error.code` stands for (InvalidInputError
 * keeping `field`, a 409 `not_resumable` a ConflictError keeping `reason` in `response`), by status
 * when the body is not the API's (a gateway's 403), and `response` saying what the answer was.
 */
export function errorFromResponse(
  status: number,
  text: string,
  retryAfterMs: number | undefined,
  idempotencyKey?: string,
): ClientError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const said = apiError(body);
  const facts = {
    ...(said?.field === undefined ? {} : { field: said.field }),
    ...(said?.runId === undefined ? {} : { runId: said.runId }),
    ...(said?.seq === undefined ? {} : { seq: said.seq }),
    ...(said?.generation === undefined ? {} : { generation: said.generation }),
    ...(said?.cap === undefined ? {} : { cap: said.cap }),
    ...(typeof said?.id === "string" ? { id: said.id } : {}),
    ...(Array.isArray(said?.differences) ? { differences: said.differences.map(String) } : {}),
    ...(typeof said?.spec === "string" ? { spec: said.spec } : {}),
    ...(Array.isArray(said?.allowed) ? { allowed: said.allowed.map(String) } : {}),
    ...(Array.isArray(said?.prefixes) ? { prefixes: said.prefixes.map(String) } : {}),
  };
  const message = said?.message ?? otherMessage(status, body, text);
  const error = errorFor(status, said?.code, message, facts, idempotencyKey);
  const response: ErrorResponse = {
    status,
    ...(said === undefined ? {} : { code: said.code }),
    ...(said?.reason === undefined ? {} : { reason: said.reason }),
    ...(said?.cap === undefined ? {} : { cap: said.cap }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
  Object.defineProperty(error, "response", { value: response, enumerable: true });
  return error as ClientError;
}
