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

/**
 * What the other codes a store meets mean for its file, in words a user can act on: node:sqlite's
 * own message ("database or disk is full") names neither the file nor what to do. A cause that
 * passes once someone acts ends with what to do then, which only the operation knows (`afterFix`).
 */
const CAUSES: Readonly<Record<number, (afterFix: string) => string>> = {
  8: () => "the file cannot be written (it or its file system is read-only)", // SQLITE_READONLY
  10: () => "the file system failed to read or write it", // SQLITE_IOERR
  11: () => "the file is damaged", // SQLITE_CORRUPT
  13: (afterFix) => `the disk holding it is full: free space there, then ${afterFix}`, // SQLITE_FULL
  14: () => "it cannot be opened (its folder is missing or not accessible)", // SQLITE_CANTOPEN
  26: () => "it is not a database file", // SQLITE_NOTADB
};

/**
 * What to do once a passing problem of the file (a full disk) is fixed, by the kind of operation
 * it stopped: a run that was never created is started again, one stopped mid-way is resumed.
 */
export const AFTER_FIX = {
  /** Creating a run: nothing of it was stored. */
  startAgain: "start the run again",
  /** A write to a run that exists (an append, its head, its lease, its status). */
  resume: "resume the run",
  /** Anything else (opening the store, a read, a listing, an expiry). */
  tryAgain: "try again",
} as const;

/** What the error of a failed store call is about: its run and seq, and what to do once its cause is fixed. */
export interface StoreFacts {
  runId?: string;
  seq?: number;
  /** @default AFTER_FIX.tryAgain */
  afterFix?: string;
}

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
 * unreadable file) will fail again until someone acts, and is permanent, its message saying
 * what is wrong with the file (CAUSES). `what` names the
 * operation and run, `file` the database, `facts` the run and seq where there are some and what
 * to do once the cause is fixed.
 */
export function toRunlogError(
  error: unknown,
  what: string,
  file: string,
  { afterFix = AFTER_FIX.tryAgain, ...facts }: StoreFacts = {},
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
    default: {
      const cause = CAUSES[sqliteCode(error) ?? -1]?.(afterFix);
      return new PermanentError(
        `${what}: ${file}: ${cause === undefined ? detail : `${cause} (${detail})`}`,
        options,
      );
    }
  }
}
