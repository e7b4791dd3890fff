import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import { errorMessage, ModelRejectedError, ModelUnavailableError } from "../../core/errors.ts";
import { redact } from "../../core/redact.ts";
import { saysContextFull } from "../contextWindow.ts";

/** Statuses whose message may describe a full context; never 429, whose "too many tokens" means a rate. */
const CONTEXT_FULL_STATUSES = new Set([400, 413, 422, undefined]);

/** Whether a provider error says the conversation does not fit the model's context window. */
export function isContextLengthError(error: unknown): boolean {
  if (!(error instanceof APIError) || error instanceof APIConnectionError) return false;
  if (error.code === "context_length_exceeded") return true;
  if (!CONTEXT_FULL_STATUSES.has(error.status)) return false;
  return saysContextFull(error.message);
}

/**
 * Translate what the SDK threw (after its own retries) into runlog's error family:
 * ModelUnavailableError when trying again later may work, ModelRejectedError when it will not.
 */
export function toModelError(
  error: unknown,
  spec: string,
  /** Secrets the message must not show whatever their shape (the client's API key). */
  known: readonly (string | undefined)[] = [],
  /** The endpoint the request went to: a failure says where, so a key sent to the wrong one shows. */
  url?: string,
): ModelUnavailableError | ModelRejectedError {
  const options = { cause: error };
  // Providers echo what they were sent (`Incorrect API key provided: sk-…`): nothing of it is kept.
  const unavailable = (message: string) => new ModelUnavailableError(redact(message, known), options);
  const rejected = (message: string) => new ModelRejectedError(redact(message, known), options);
  if (error instanceof APIConnectionTimeoutError) {
    return unavailable(`${spec} is unavailable${at(url)}: the request timed out`);
  }
  if (error instanceof APIConnectionError) {
    const cause = error.cause ? `: ${errorMessage(error.cause)}` : "";
    return unavailable(`${spec} is unavailable${at(url)}: ${error.message}${cause}`);
  }
  if (error instanceof APIError) {
    const detail = `${error.message}${requestId(error)}`;
    if (isRetryableStatus(error)) {
      return unavailable(`${spec} is unavailable${at(url)}: ${detail}${retryAfter(error)}`);
    }
    return rejected(`${spec} rejected the request${at(url)}: ${detail}`);
  }
  // Not the SDK's: a bug or an unexpected failure, so nothing says retrying would help.
  return rejected(`${spec} failed unexpectedly: ${errorMessage(error)}`);
}

function isRetryableStatus(error: APIError): boolean {
  const status = error.status ?? inStreamStatus(error);
  if (status === undefined) return true; // an error event inside the stream, with no status to judge by
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Servers such as vLLM put the HTTP status they would have sent in an in-stream error's `code`. */
function inStreamStatus(error: APIError): number | undefined {
  const code = Number(error.code);
  return Number.isInteger(code) && code >= 400 && code < 600 ? code : undefined;
}

function retryAfter(error: APIError): string {
  const seconds = error.headers?.get("retry-after");
  if (seconds) return ` (Retry-After: ${seconds})`;
  const ms = error.headers?.get("retry-after-ms");
  return ms ? ` (retry-after-ms: ${ms})` : "";
}

function requestId(error: APIError): string {
  return error.requestID ? ` [request ${error.requestID}]` : "";
}

/** ` at URL` for a message naming where a request went, "" when that is not known. */
export function at(url: string | undefined): string {
  return url === undefined ? "" : ` at ${endpoint(url)}`;
}

/** An endpoint as a message may show it: without a user, password or query that could hold a secret. */
function endpoint(url: string): string {
  if (!URL.canParse(url)) return url;
  const shown = new URL(url);
  shown.username = "";
  shown.password = "";
  shown.search = "";
  return shown.href.replace(/\/$/, "");
}
