import { type ErrorCategory, errorCategory } from "../core/errors.ts";

/** Names the state machine retries: a later attempt may succeed. */
export const RETRY_ON: readonly ErrorCategory[] = ["RetryableError", "ConflictError"];
/** Lambda's own transient failures (throttled, service errors), retried as AWS recommends. */
export const LAMBDA_TRANSIENT = [
  "Lambda.ServiceException",
  "Lambda.AWSLambdaException",
  "Lambda.SdkClientException",
  "Lambda.TooManyRequestsException",
] as const;
/** The name that ends an execution quietly: a newer generation owns the run. */
export const SUPERSEDED_ON: readonly ErrorCategory[] = ["StaleError"];

/**
 * The error a task reports to the state machine: named by its category (so
 * Retry and Catch can match it), with the original name kept in the message
 * as "OriginalName: message" for whoever records it.
 */
export function toWorkflowError(error: unknown): Error {
  const category = errorCategory(error);
  const original = error instanceof Error ? `${error.name}: ${error.message}` : `Error: ${String(error)}`;
  const mapped = new Error(original, { cause: error });
  mapped.name = category;
  return mapped;
}
