import {
  ConflictError,
  errorMessage,
  NotFoundError,
  PermanentError,
  RetryableError,
  RunlogError,
} from "../../core/errors.ts";

/** Errors after which the same request may succeed: throttling, a full account, a transient KMS failure. */
const RETRYABLE = new Set([
  "ThrottlingException",
  "TooManyRequestsException",
  "ExecutionLimitExceeded",
  "KmsThrottlingException",
  "ServiceUnavailable",
  "InternalServerError",
  "InternalFailure",
]);
const NOT_FOUND = new Set(["StateMachineDoesNotExist", "ExecutionDoesNotExist", "ResourceNotFound"]);
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN"]);
const NETWORK_NAMES = new Set(["TimeoutError", "RequestTimeout", "AbortError"]);

type Shape = { name?: unknown; code?: unknown; $fault?: unknown; $retryable?: unknown; $metadata?: unknown };

const shape = (error: unknown): Shape => (typeof error === "object" && error !== null ? error : {});

/** The SDK's name for an error (`ExecutionAlreadyExists` …), if it has one. */
export function sfnErrorName(error: unknown): string | undefined {
  const { name } = shape(error);
  return typeof name === "string" ? name : undefined;
}

function isTransient(error: unknown): boolean {
  const { name, code, $fault, $retryable, $metadata } = shape(error);
  if (typeof name === "string" && (RETRYABLE.has(name) || NETWORK_NAMES.has(name))) return true;
  if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
  const status = (
    typeof $metadata === "object" && $metadata && "httpStatusCode" in $metadata
      ? $metadata.httpStatusCode
      : undefined
  ) as number | undefined;
  return $fault === "server" || Boolean($retryable) || (status !== undefined && status >= 500);
}

/**
 * Translate what the Step Functions SDK throws into runlog's error family,
 * because callers and the state machine decide by category. `what` names the
 * operation ("start execution r1-g2").
 */
export function toRunlogError(error: unknown, what: string): RunlogError {
  if (error instanceof RunlogError) return error;
  const name = sfnErrorName(error);
  const detail = `${name ? `${name}: ` : ""}${errorMessage(error)}`;
  const options = { cause: error };
  if (isTransient(error))
    return new RetryableError(`${what}: Step Functions failed transiently (${detail})`, options);
  if (name === "ExecutionAlreadyExists") return new ConflictError(`${what}: ${detail}`, options);
  if (name !== undefined && NOT_FOUND.has(name)) return new NotFoundError(`${what}: ${detail}`, options);
  return new PermanentError(`${what}: Step Functions rejected the request (${detail})`, options);
}
