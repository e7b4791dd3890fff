import { ConflictError, RetryableError, type RunlogError } from "../../core/errors.ts";
import { awsErrorName, toRunlogError as toAwsError } from "../aws/errors.ts";

const RETRYABLE = new Set(["ExecutionLimitExceeded", "KmsThrottlingException"]);
const NOT_FOUND = new Set(["StateMachineDoesNotExist", "ExecutionDoesNotExist", "ResourceNotFound"]);

/** The SDK's name for an error (`ExecutionAlreadyExists` …), if it has one. */
export const sfnErrorName = awsErrorName;

/**
 * Translate what the Step Functions SDK throws into runlog's error family (the
 * shared AWS classification, lib/adapters/aws/errors.ts, plus Step Functions'
 * own names). `what` names the operation ("start execution r1-g2").
 */
export function toRunlogError(error: unknown, what: string): RunlogError {
  return toAwsError(error, what, {
    service: "Step Functions",
    notFound: NOT_FOUND,
    own: (name, message, options) => {
      // The account's open executions are at their limit (one ending makes room), or KMS throttles.
      if (RETRYABLE.has(name)) return new RetryableError(message, options);
      if (name === "ExecutionAlreadyExists") return new ConflictError(message, options);
      return undefined;
    },
  });
}
