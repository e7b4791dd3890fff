import {
  ConflictError,
  errorMessage,
  PermanentError,
  RetryableError,
  RunlogError,
} from "../../core/errors.ts";

const THROTTLING = new Set([
  "ProvisionedThroughputExceededException",
  "ThrottlingException",
  "RequestLimitExceeded",
  "LimitExceededException",
]);
const SERVER = new Set(["InternalServerError", "InternalFailure", "ServiceUnavailable"]);
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);
const NETWORK_NAMES = new Set(["TimeoutError", "RequestTimeout"]);

type Shape = {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  $fault?: unknown;
  $retryable?: unknown;
  errors?: unknown;
};

const shape = (error: unknown): Shape => (typeof error === "object" && error !== null ? error : {});

/** True for DynamoDB's "your condition did not hold", which callers usually turn into a decision, not a failure. */
export function isConditionalFailure(error: unknown): boolean {
  return shape(error).name === "ConditionalCheckFailedException";
}

/** Whether the SDK sent the request more than once (an earlier attempt may have been applied). */
export function wasRetried(error: unknown): boolean {
  const metadata = (shape(error) as { $metadata?: { attempts?: unknown } }).$metadata;
  return typeof metadata?.attempts === "number" && metadata.attempts > 1;
}

/** A dropped, refused or timed-out connection (the request may not have reached DynamoDB). */
export function isNetworkError(error: unknown): boolean {
  const { name, code, message, errors } = shape(error);
  if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
  if (typeof name === "string" && NETWORK_NAMES.has(name)) return true;
  if (typeof message === "string" && /socket hang up/i.test(message)) return true;
  // Node reports a failed connect to several addresses as an AggregateError of the attempts.
  return Array.isArray(errors) && errors.some(isNetworkError);
}

/** A connection nobody accepted: the request was certainly not processed, so repeating it elsewhere is safe. */
export function isConnectionRefused(error: unknown): boolean {
  const { code, errors } = shape(error);
  return code === "ECONNREFUSED" || (Array.isArray(errors) && errors.some(isConnectionRefused));
}

/**
 * Translate anything the SDK throws into runlog's error family, because the
 * state machine's Retry/Catch and every caller decide by category. `what`
 * names the operation and run ("append seq 3 to run r1").
 */
export function toRunlogError(error: unknown, what: string, tableName?: string): RunlogError {
  if (error instanceof RunlogError) return error;
  const { name, $fault, $retryable } = shape(error);
  const detail = `${typeof name === "string" ? `${name}: ` : ""}${errorMessage(error)}`;
  const options = { cause: error };
  if (name === "ConditionalCheckFailedException") {
    return new ConflictError(`${what}: the item changed underneath (${detail})`, options);
  }
  if (name === "TransactionConflictException") {
    return new RetryableError(`${what}: a concurrent transaction got in the way (${detail})`, options);
  }
  if (typeof name === "string" && THROTTLING.has(name)) {
    return new RetryableError(`${what}: DynamoDB is throttling requests (${detail})`, options);
  }
  if ((typeof name === "string" && SERVER.has(name)) || $fault === "server" || $retryable) {
    return new RetryableError(`${what}: DynamoDB had a transient failure (${detail})`, options);
  }
  if (isNetworkError(error)) {
    return new RetryableError(`${what}: could not reach DynamoDB (${detail})`, options);
  }
  if (name === "ResourceNotFoundException") {
    const table = tableName ? `table ${tableName}` : "the table";
    return new PermanentError(`${what}: ${table} does not exist (${detail})`, options);
  }
  if (name === "ValidationException" || name === "SerializationException") {
    return new PermanentError(`${what}: DynamoDB rejected the request (${detail})`, options);
  }
  return new PermanentError(`${what}: ${detail}`, options);
}
