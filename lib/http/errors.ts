import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  ConflictError,
  CorruptEventError,
  errorFacts,
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
  RetryableError,
  RunCancelledError,
  RunlogError,
  StaleError,
  TooManyRunsError,
  UnauthorizedError,
  UnknownModelError,
} from "../core/errors.ts";
import { redact } from "../core/redact.ts";

/**
 * The one shape every error response has. `field` names the bad input; `reason` says why a run
 * cannot go on; `runId`, `seq` and `generation` are the facts the error is about, where it has them.
 */
export interface ErrorBody {
  error: {
    code: string;
    message: string;
    field?: string;
    reason?: string;
    runId?: string;
    seq?: number;
    generation?: number;
    /** A 429's cap: the runs one owner may have running at once. */
    cap?: number;
    /** An `id_taken`'s id: the run id or fork id the caller chose, which names a different run. */
    id?: string;
    /** An `id_taken`'s differences: what sets the stored run apart from the one asked for. */
    differences?: string[];
    /** An `unknown_model`'s or `model_not_allowed`'s model spec, as the request named it. */
    spec?: string;
    /** A `model_not_allowed`'s allow list: the patterns a spec must match here. */
    allowed?: string[];
    /** An `unknown_model`'s known prefixes (`openai`, `bedrock` …): those a provider serves here. */
    prefixes?: string[];
  };
}

/** An error the HTTP layer itself raises, already carrying its status and code. */
export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly details: { field?: string; reason?: string; runId?: string } = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A 400 naming the request field that was wrong. */
export function invalidInput(field: string, message: string): HttpError {
  return new HttpError(400, "invalid_input", message, { field });
}

/**
 * What a route answers when the library refused the model its body names: an unknown or
 * disallowed spec keeps its own code (`unknown_model`, `model_not_allowed`, field `model`), as every
 * route answers it; any other refusal while a model was named is about that model
 * (`invalid_input`, field `model`), unless the error names a field of its own (`limits.maxTurns`,
 * `modelSettings.topP` …).
 */
export function asModelRefusal(error: unknown, model: string | undefined): unknown {
  if (error instanceof UnknownModelError || error instanceof ModelNotAllowedError) return error;
  if (error instanceof InvalidInputError && model !== undefined && error.field === undefined)
    return invalidInput("model", error.message);
  return error;
}

/**
 * A 409 `idempotency_key_reused`: the caller's Idempotency-Key already named `runId` (a run, or a
 * replay batch's first run) made by a different request. As the control routes answer it.
 */
export function keyReused(runId: string | undefined, what = "request"): HttpError {
  return new HttpError(
    409,
    "idempotency_key_reused",
    `this Idempotency-Key was used for a different ${what}${runId === undefined ? "" : ` (run ${runId})`}`,
    runId === undefined ? {} : { runId },
  );
}

/** The response an error becomes. */
export interface ErrorAnswer {
  status: ContentfulStatusCode;
  body: ErrorBody;
  /** True for a failure of ours (not the caller's), which the server should log. */
  internal: boolean;
}

const answer = (
  status: ContentfulStatusCode,
  code: string,
  error: RunlogError,
  internal = false,
): ErrorAnswer => ({
  status,
  body: { error: { code, message: redact(error.message), ...errorFacts(error) } },
  internal,
});

/**
 * Map anything a route throws to a status by the error's kind, never by its
 * message: bad input 400, no identity 401, unknown (or another owner's) run 404, an admin's
 * operation 403, an owner at its cap of running runs 429, someone else's write or lease 409,
 * a model that refuses the request 422, transient 503 (safe to retry), 501 for what this
 * deployment lacks (an index an older table was made without), and 500 only for failures of ours.
 * Each runlog error class a client can tell apart keeps a code of its own (`id_taken`,
 * `run_cancelled` …), so runlog/client throws the same class the library would.
 */
export function errorAnswer(error: unknown): ErrorAnswer {
  if (error instanceof HttpError) {
    return {
      status: error.status,
      body: { error: { code: error.code, message: redact(error.message), ...error.details } },
      internal: false,
    };
  }
  // A model spec refused is an invalid input with a code of its own, so a client can tell which.
  if (error instanceof UnknownModelError || error instanceof ModelNotAllowedError) {
    const refused = answer(400, error.code, error);
    const facts =
      error instanceof UnknownModelError
        ? { spec: error.spec, prefixes: [...error.prefixes] }
        : { spec: error.spec, allowed: [...error.allowed] };
    return { ...refused, body: { error: { ...refused.body.error, ...facts } } };
  }
  if (error instanceof InvalidInputError) return answer(400, "invalid_input", error);
  if (error instanceof UnauthorizedError) return answer(401, "unauthorized", error);
  if (error instanceof NotFoundError) return answer(404, "not_found", error);
  if (error instanceof ForbiddenError) return answer(403, "forbidden", error);
  // Its cap is one of the error's facts (errorFacts).
  if (error instanceof TooManyRunsError) return answer(429, "too_many_runs", error);
  if (error instanceof LeaseHeldError) return answer(409, "run_in_progress", error);
  if (error instanceof IdempotencyKeyReusedError) return answer(409, "idempotency_key_reused", error);
  if (error instanceof IdTakenError) {
    const taken = answer(409, "id_taken", error);
    const said = { id: error.id, differences: error.differences.map((text) => redact(text)) };
    return { ...taken, body: { error: { ...taken.body.error, ...said } } };
  }
  if (error instanceof RunCancelledError) return answer(409, "run_cancelled", error);
  if (error instanceof StaleError) return answer(409, "stale", error);
  if (error instanceof ConflictError) return answer(409, "conflict", error);
  // The model refused the request itself (a bad key, a request it will never take): not ours, and
  // not worth a retry, but not the caller's input either.
  if (error instanceof ModelRejectedError) return answer(422, "model_rejected", error, true);
  if (error instanceof ModelUnavailableError) return answer(503, "model_unavailable", error, true);
  if (error instanceof RetryableError) return answer(503, "unavailable", error, true);
  // The deployment lacks what the route needs (a table made before an index): not a failure of
  // the request, nor one a retry fixes; the message names the index and what adds it.
  if (error instanceof MissingIndexError) return answer(501, "index_missing", error, true);
  // A stored event that cannot be read fails the same way every time: a retry will not help.
  if (error instanceof CorruptEventError) return answer(500, "corrupt_event", error, true);
  // runlog's own errors say what failed in words meant for users; anything else may hold internals.
  if (error instanceof RunlogError) return answer(500, "internal", error, true);
  return { status: 500, body: { error: { code: "internal", message: "internal error" } }, internal: true };
}
