import { InvalidInputError } from "./errors.ts";

/** What a run id may be: letters, digits, ".", "_" and "-", starting with a letter or digit, at most 128. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Reject ids that could escape a path or a key: letters, digits, ".", "_" and "-", at most 128. */
export function validateRunId(runId: string, what = "run id"): string {
  if (!RUN_ID.test(runId)) {
    throw new InvalidInputError(
      `${what} ${JSON.stringify(runId.slice(0, 140))} is invalid: use 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
  return runId;
}
