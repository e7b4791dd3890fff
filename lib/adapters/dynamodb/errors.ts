import { PermanentError, RetryableError, type RunlogError } from "../../core/errors.ts";
import { toRunlogError as toAwsError } from "../aws/errors.ts";

export { isConditionalFailure, wasRetried } from "../aws/errors.ts";

/**
 * Translate anything the DynamoDB SDK throws into runlog's error family (the
 * shared AWS classification, lib/adapters/aws/errors.ts, plus DynamoDB's own
 * names). `what` names the operation and run ("append seq 3 to run r1").
 */
export function toRunlogError(error: unknown, what: string, tableName?: string): RunlogError {
  return toAwsError(error, what, {
    service: "DynamoDB",
    missing: {
      words: `${tableName ? `table ${tableName}` : "the table"} does not exist`,
      as: PermanentError,
    },
    own: (name, message, options) =>
      // Another transaction held an item for a moment: the same request may go through next time.
      name === "TransactionConflictException"
        ? new RetryableError(`${message} (a concurrent transaction got in the way)`, options)
        : undefined,
  });
}
