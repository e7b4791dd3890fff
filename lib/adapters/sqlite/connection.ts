import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { PermanentError } from "../../core/errors.ts";
import { toRunlogError } from "./errors.ts";
import { type DatabaseSync, loadNodeSqlite, type StatementSync } from "./nodeSqlite.ts";
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
  /** How long a write waits for another process's write lock before failing as retryable. @default 5000 */
  busyTimeoutMs?: number;
  /** @default the system clock */
  clock?: { now(): Date };
}

/**
 * One open connection to the store's file, in this process. The settings, and
 * what each guarantees:
 * - `journal_mode = WAL` (kept in the file): readers never block the writer nor
 *   the writer them, across processes; one writer at a time. Needs a local
 *   file system (not a network share), as every WAL database does.
 * - `synchronous = FULL` (see Durability) by default; `fullfsync` makes macOS
 *   flush the drive's cache too (a plain fsync does not there; a no-op elsewhere).
 * - `busy_timeout`: a writer that finds the write lock taken by another
 *   process retries for this long instead of failing at once. Every write is
 *   one statement or a BEGIN IMMEDIATE transaction, which takes the lock first,
 *   so a write never fails late on a snapshot another writer moved.
 * Statements are synchronous: a transaction never spans an await, so calls in
 * one process never interleave inside one.
 */
export class SqliteConnection {
  readonly file: string;
  private readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();
  private readonly clock: { now(): Date };

  constructor(options: ConnectionOptions) {
    this.file = options.file;
    this.clock = options.clock ?? { now: () => new Date() };
    const { DatabaseSync } = loadNodeSqlite();
    try {
      mkdirSync(dirname(options.file), { recursive: true });
      this.db = new DatabaseSync(options.file);
    } catch (error) {
      throw toRunlogError(error, "open the store", options.file);
    }
    try {
      // First, so that even switching to WAL waits for another process opening the file.
      this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5_000))}`);
      const mode = this.db.prepare("PRAGMA journal_mode = WAL").get()?.journal_mode;
      if (mode !== "wal") throw new PermanentError(`${options.file}: could not use WAL mode (got ${mode})`);
      const full = (options.durability ?? "full") === "full";
      this.db.exec(
        `PRAGMA synchronous = ${full ? "FULL" : "NORMAL"}; PRAGMA fullfsync = ${full ? "ON" : "OFF"}`,
      );
      migrate(this.db, options.file);
    } catch (error) {
      this.db.close();
      throw toRunlogError(error, "open the store", options.file);
    }
  }

  now(): Date {
    return this.clock.now();
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

  /** Run database calls, turning any failure into a runlog error that names `what` and the file. */
  attempt<T>(what: string, calls: () => T): T {
    try {
      return calls();
    } catch (error) {
      throw toRunlogError(error, what, this.file);
    }
  }

  /** Run `calls` in one write transaction (BEGIN IMMEDIATE: the write lock first), all or nothing. */
  transaction<T>(what: string, calls: () => T): T {
    return this.attempt(what, () => {
      this.db.exec("BEGIN IMMEDIATE");
      try {
        const result = calls();
        this.db.exec("COMMIT");
        return result;
      } catch (error) {
        if (this.db.isTransaction) this.db.exec("ROLLBACK");
        throw error;
      }
    });
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}
