import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { PermanentError } from "../../core/errors.ts";
import { isBusy, type StoreFacts, toRunlogError } from "./errors.ts";
import { type DatabaseSync, loadNodeSqlite, type StatementSync } from "./nodeSqlite.ts";
import { createPrivate, modeOf, tightenFiles } from "./privateFiles.ts";
import { migrate } from "./schema.ts";

/**
 * What a commit waits for. `full`: the write-ahead log is fsynced at every
 * commit, so an acknowledged event survives power loss or an OS crash.
 * `normal`: it is fsynced only at checkpoints, so the last commits before a
 * power loss may be lost (never half-written: the file stays consistent); a
 * crash of the process alone loses nothing either way. Measured on a 2-core
 * VM with an ext4 disk (bench/src/sqliteStore.ts): an append of a 2 KB event
 * costs 0.7–1.1 ms (median) with `full`, 0.05–0.07 ms with `normal`.
 */
export type Durability = "full" | "normal";

export interface ConnectionOptions {
  /** The database file; its folder is created if missing. */
  file: string;
  /** @default "full" */
  durability?: Durability;
  /** How long a call waits for another process's write lock before failing as retryable. @default 5000 */
  busyTimeoutMs?: number;
  /** @default the system clock */
  clock?: { now(): Date };
  /**
   * Told what its user should know and no call returns: a store file other users could read made
   * private (0600), or one that could not be; housekeeping that failed. @default writes to stderr
   */
  warn?: (line: string) => void;
}

/** The SQL of the statements every run executes, in the order their modules declared them. */
const RUN_SQL: string[] = [];

/**
 * Declare SQL that every run executes (its appends, the reads and writes of its head, its lease):
 * the text as given, prepared when a store opens for runs (prepareRunStatements), so a process's
 * first run prepares no statement of its own. Declared once, at a module's top level.
 */
export function runSql(sql: string): string {
  RUN_SQL.push(sql);
  return sql;
}

/**
 * How long SQLite's own busy handler waits within one try. Its sleeps grow to
 * 100 ms, so a writer that has waited a while looks at the lock ten times a
 * second while fresh writers look every few ms and take it first: with 16
 * processes appending back to back, one starved past 5 s. Starting the handler
 * afresh every 25 ms keeps every waiter's sleeps at 1-10 ms, so a long waiter polls as often
 * as a fresh one (test/reliability/sqliteProcesses.test.ts).
 */
const TRY_MS = 25;

/**
 * One open connection to the store's file, in this process. The settings, and
 * what each guarantees:
 * - `journal_mode = WAL` (kept in the file): readers never block the writer nor
 *   the writer them, across processes; one writer at a time. Needs a local
 *   file system (not a network share), as every WAL database does.
 * - `synchronous = FULL` (see Durability) by default; `fullfsync` makes macOS
 *   flush the drive's cache too (a plain fsync does not there; a no-op elsewhere).
 * - Waiting for the lock: a writer that finds the write lock taken by another
 *   process keeps trying for `busyTimeoutMs` instead of failing at once (see
 *   `untilFree`). Every write is one statement or a BEGIN IMMEDIATE
 *   transaction, which takes the lock first, so a write never fails late on a
 *   snapshot another writer moved, and a busy call has written nothing and can
 *   be made again whole.
 * - Writes commit in groups (groupCommit.ts): the writes of one turn of the
 *   event loop share one transaction, so one fsync.
 * Statements are synchronous: a transaction never spans an await, so calls in
 * one process never interleave inside one.
 */
export class SqliteConnection {
  readonly file: string;
  private readonly db: DatabaseSync;
  private readonly busyTimeoutMs: number;
  private readonly statements = new Map<string, StatementSync>();
  private readonly clock: { now(): Date };

  constructor(options: ConnectionOptions) {
    this.file = options.file;
    this.clock = options.clock ?? { now: () => new Date() };
    this.busyTimeoutMs = Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5_000));
    const { DatabaseSync } = loadNodeSqlite();
    const files = [options.file, `${options.file}-wal`, `${options.file}-shm`];
    const before = new Map(files.map((file) => [file, modeOf(file)]));
    try {
      mkdirSync(dirname(options.file), { recursive: true, mode: 0o700 });
      createPrivate(options.file);
      this.db = new DatabaseSync(options.file);
    } catch (error) {
      throw toRunlogError(error, "open the store", options.file);
    }
    try {
      // First, so that even switching to WAL waits for another process opening the file.
      this.db.exec(`PRAGMA busy_timeout = ${Math.min(TRY_MS, this.busyTimeoutMs)}`);
      const mode = this.untilFree(() => this.db.prepare("PRAGMA journal_mode = WAL").get()?.journal_mode);
      if (mode !== "wal") throw new PermanentError(`${options.file}: could not use WAL mode (got ${mode})`);
      // After WAL mode is on, so the sidecars it made are there to tighten too.
      tightenFiles(files, before, options.warn ?? ((line) => process.stderr.write(`${line}\n`)));
      const full = (options.durability ?? "full") === "full";
      this.db.exec(
        `PRAGMA synchronous = ${full ? "FULL" : "NORMAL"}; PRAGMA fullfsync = ${full ? "ON" : "OFF"}`,
      );
      this.untilFree(() => migrate(this.db, options.file));
    } catch (error) {
      this.db.close();
      throw toRunlogError(error, "open the store", options.file);
    }
  }

  now(): Date {
    return this.clock.now();
  }

  /** Prepare every statement declared with runSql, as a store opened for runs does at open. */
  prepareRunStatements(): void {
    for (const sql of RUN_SQL) this.statement(sql);
  }

  /** The statement for this SQL, prepared once per connection. */
  statement(sql: string): StatementSync {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      prepared = this.db.prepare(sql);
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  /**
   * Run database calls, turning any failure into a runlog error that names
   * `what` and the file, and carrying `facts` (the run and seq it is about). `calls` is one
   * statement, reads, or a transaction: made again whole while the lock is busy, which is safe
   * because a busy call changed nothing.
   */
  attempt<T>(what: string, calls: () => T, facts?: StoreFacts): T {
    try {
      return this.untilFree(calls);
    } catch (error) {
      throw toRunlogError(error, what, this.file, facts);
    }
  }

  /** Run `calls` in one write transaction (BEGIN IMMEDIATE: the write lock first), all or nothing. */
  transaction<T>(what: string, calls: () => T, facts?: StoreFacts): T {
    return this.attempt(what, () => this.once(calls), facts);
  }

  /**
   * As `transaction`, but tried once, waiting for the lock only as long as one try of SQLite's
   * busy handler (TRY_MS): undefined when another writer holds it. For housekeeping that may
   * wait for a later turn rather than hold up the writers queued for the lock.
   */
  transactionIfFree<T>(what: string, calls: () => T): { done: T } | undefined {
    try {
      return { done: this.once(calls) };
    } catch (error) {
      if (isBusy(error)) return undefined;
      throw toRunlogError(error, what, this.file);
    }
  }

  /**
   * As `transaction`, but a failure is thrown as SQLite gave it, untranslated: for a group
   * commit, whose callers each name their own run and seq in the error (toRunlogError).
   */
  transactionRaw<T>(calls: () => T): T {
    return this.untilFree(() => this.once(calls));
  }

  /** One statement (its own transaction), made again while busy; a failure is thrown untranslated. */
  statementRaw<T>(calls: () => T): T {
    return this.untilFree(calls);
  }

  private once<T>(calls: () => T): T {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const result = calls();
      this.db.exec("COMMIT");
      return result;
    } catch (error) {
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
      throw error;
    }
  }

  /** `calls`, tried again (each try waiting up to TRY_MS in SQLite) while the lock stays busy, up to busyTimeoutMs. */
  private untilFree<T>(calls: () => T): T {
    const deadline = Date.now() + this.busyTimeoutMs;
    for (;;) {
      try {
        return calls();
      } catch (error) {
        if (!isBusy(error) || Date.now() >= deadline) throw error;
      }
    }
  }

  get isOpen(): boolean {
    return this.db.isOpen;
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}
