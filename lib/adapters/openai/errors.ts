import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import { errorMessage, ModelRejectedError, ModelUnavailableError } from "../../core/errors.ts";

/**
 * How compatible servers say the prompt does not fit: OpenAI and Azure ("maximum context
 * length"), vLLM and LM Studio ("context length"), Mistral, Anthropic and Bedrock
 * ("too many tokens", "prompt is too long", "input is too long").
 */
const CONTEXT_FULL_PATTERNS = [
  /context[ _-]?(length|window)/i,
  /maximum context/i,
  /too many tokens/i,
  /(prompt|input) is too long/i,
];

/** Statuses whose message may describe a full context; never 429, whose "too many tokens" means a rate. */
const CONTEXT_FULL_STATUSES = new Set([400, 413, 422, undefined]);

/** Whether a provider error says the conversation does not fit the model's context window. */
export function isContextLengthError(error: unknown): boolean {
  if (!(error instanceof APIError) || error instanceof APIConnectionError) return false;
  if (error.code === "context_length_exceeded") return true;
  if (!CONTEXT_FULL_STATUSES.has(error.status)) return false;
  return CONTEXT_FULL_PATTERNS.some((pattern) => pattern.test(error.message));
}

/**
 * Translate what the SDK threw (after its own retries) into runlog's error family:
 * ModelUnavailableError when trying again later may work, ModelRejectedError when it will not.
 */
export function toModelError(error: unknown, spec: string): ModelUnavailableError | ModelRejectedError {
  const options = { cause: error };
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelUnavailableError(`${spec} is unavailable: the request timed out`, options);
  }
  if (error instanceof APIConnectionError) {
    const cause = error.cause ? `: ${errorMessage(error.cause)}` : "";
    return new ModelUnavailableError(`${spec} is unavailable: ${error.message}${cause}`, options);
  }
  if (error instanceof APIError) {
    const detail = `${error.message}${requestId(error)}`;
    if (isRetryableStatus(error)) {
      return new ModelUnavailableError(`${spec} is unavailable: ${detail}${retryAfter(error)}`, options);
    }
    return new ModelRejectedError(`${spec} rejected the request: ${detail}`, options);
  }
  // Not the SDK's: a bug or an unexpected failure, so nothing says retrying would help.
  return new ModelRejectedError(`${spec} failed unexpectedly: ${errorMessage(error)}`, options);
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
