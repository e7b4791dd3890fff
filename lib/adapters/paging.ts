import { InvalidInputError } from "../core/errors.ts";

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1_000;

/** A listRuns page size: the default when absent, at most 1,000, InvalidInputError when not a positive integer. */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new InvalidInputError(`limit: expected a positive integer, got ${limit}`);
  }
  return Math.min(limit, MAX_LIMIT);
}
