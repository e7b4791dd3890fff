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

/** How much of a refused cursor an error quotes: enough to recognise it, never a whole forged blob. */
const QUOTED_CURSOR_CHARS = 40;

/**
 * The error for a listRuns cursor the store did not issue: InvalidInputError naming the cursor (quoted,
 * cut short) and what is wrong with it, never a silent first page.
 */
export function invalidCursor(cursor: string, problem: string, cause?: unknown): InvalidInputError {
  const shown = cursor.length > QUOTED_CURSOR_CHARS ? `${cursor.slice(0, QUOTED_CURSOR_CHARS)}…` : cursor;
  return new InvalidInputError(
    `cursor ${JSON.stringify(shown)}: expected a cursor returned by listRuns (${problem})`,
    cause === undefined ? undefined : { cause },
  );
}
