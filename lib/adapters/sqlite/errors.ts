import {
  ConflictError,
  errorMessage,
  PermanentError,
  RetryableError,
  RunlogError,
} from "../../core/errors.ts";

/** SQLite's primary result codes that decide a category (the low byte of an extended code). */
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_CONSTRAINT = 19;

/** The primary SQLite result code of an error node:sqlite threw, if it is one. */
export function sqliteCode(error: unknown): number | undefined {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === "number" ? code & 0xff : undefined;
}

/** Another connection holds the lock this call needs: the call changed nothing, and may be made again. */
export const isBusy = (error: unknown): boolean => sqliteCode(error) === SQLITE_BUSY;

/**
 * Translate anything node:sqlite throws into runlog's error family. Busy or
 * locked (another process held the write lock past the busy timeout) is
 * retryable; a constraint is a conflict; the rest (a full disk, a corrupt or
 * unreadable file) will fail again and is permanent. `what` names the
 * operation and run, `file` the database, `facts` the run and seq where there are some.
 */
export function toRunlogError(
  error: unknown,
  what: string,
  file: string,
  facts: { runId?: string; seq?: number } = {},
): RunlogError {
  if (error instanceof RunlogError) return error;
  const options = { cause: error, ...facts };
  const detail = errorMessage(error);
  switch (sqliteCode(error)) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return new RetryableError(`${what}: ${file} stayed locked by another writer (${detail})`, options);
    case SQLITE_CONSTRAINT:
      return new ConflictError(`${what}: the record changed underneath (${detail})`, options);
    default:
      return new PermanentError(`${what}: ${file}: ${detail}`, options);
  }
}
