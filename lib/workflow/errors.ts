import {
  type ErrorCategory,
  errorCategory,
  ModelRejectedError,
  ModelUnavailableError,
} from "../core/errors.ts";

/** The names a model's own failure is reported under: only these are recorded as model failures. */
export const MODEL_FAILED_ON = ["ModelUnavailableError", "ModelRejectedError"] as const;
export type WorkflowErrorName = ErrorCategory | (typeof MODEL_FAILED_ON)[number];

/** Names the state machine retries: a later attempt may succeed. */
export const RETRY_ON: readonly WorkflowErrorName[] = [
  "RetryableError",
  "ConflictError",
  "ModelUnavailableError",
];
/** Lambda's own transient failures (throttled, service errors, an invoke that timed out), retried as AWS recommends. */
export const LAMBDA_TRANSIENT = [
  "Lambda.ServiceException",
  "Lambda.AWSLambdaException",
  "Lambda.SdkClientException",
  "Lambda.TooManyRequestsException",
  "Lambda.ClientExecutionTimeoutException",
] as const;
/**
 * A step that ran out of time: its function's timeout (`Sandbox.Timedout`) or its Task's
 * TimeoutSeconds (`States.Timeout`). Retried once, as every step is idempotent: a CallModel
 * retry finds a stored response or asks again; a RunTool retry answers a call that started and
 * has no result as interrupted (re-running only an idempotent tool). A second timeout is caught
 * as any failure is: the execution fails, the run is left resumable.
 */
export const TASK_TIMED_OUT = ["Sandbox.Timedout", "States.Timeout"] as const;
/** The name that ends an execution quietly: a newer generation owns the run. */
export const SUPERSEDED_ON: readonly ErrorCategory[] = ["StaleError"];

/** The name a task's error is reported under: a model error's own (see MODEL_FAILED_ON), else its category. */
export function workflowErrorName(error: unknown): WorkflowErrorName {
  if (error instanceof ModelUnavailableError) return "ModelUnavailableError";
  if (error instanceof ModelRejectedError) return "ModelRejectedError";
  return errorCategory(error);
}

/**
 * The error a task reports to the state machine: named by what kind of failure
 * it is (so Retry and Catch can match it: a model error by its own name, so
 * only a model's failure is recorded as one; anything else by its category),
 * with the original name kept in the message as "OriginalName: message" for
 * whoever records it.
 */
export function toWorkflowError(error: unknown): Error {
  const category = workflowErrorName(error);
  const original = error instanceof Error ? `${error.name}: ${error.message}` : `Error: ${String(error)}`;
  const mapped = new Error(original, { cause: error });
  mapped.name = category;
  return mapped;
}
