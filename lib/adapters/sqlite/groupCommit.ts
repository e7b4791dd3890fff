import { ConflictError } from "../../core/errors.ts";
import type { SqliteConnection } from "./connection.ts";
import { AFTER_FIX, type StoreFacts, toRunlogError } from "./errors.ts";
import { type EventRow, insertEvent } from "./log.ts";

/** At most this many writes in one commit, so one commit never holds the event loop long. */
export const MAX_BATCH_ROWS = 256;
/** At most about this many body bytes in one commit (a single larger row still goes alone). */
export const MAX_BATCH_BYTES = 4 * 1024 * 1024;

/** One write of a batch: its statements, and how its caller names a failure. */
export interface Write<T> {
  /** The statements, run synchronously inside the batch's transaction. */
  run: () => T;
  /** What the write does, for the error its caller gets ("append seq 3 to run r1"). */
  what: string;
  /** The run (and seq) an error names, and what to do once its cause (a full disk) is fixed. */
  facts?: StoreFacts;
  /** One statement, so a write alone in its batch is its own transaction (no BEGIN and COMMIT). */
  oneStatement?: boolean;
  /** Body bytes it stores, towards MAX_BATCH_BYTES. */
  bytes?: number;
}

interface Pending {
  write: Write<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Writes that arrive in one turn of the event loop commit together: one
 * BEGIN IMMEDIATE … COMMIT (one fsync) for all of them instead of one each.
 * Appends of events and the head's writes (a run's creation, lease claims and
 * releases, status) share it, so hundreds of runs starting, stepping or
 * ending at once cost a few fsyncs, not one each, and the event loop is not
 * held by a row of synchronous commits. A batch is gathered until the loop's
 * check phase (setImmediate), so every I/O callback of that turn joins it and
 * a lone write waits no longer than the rest of the turn. Each write runs its
 * statements in the order queued, so an append's seq taken by a committed row
 * or by an earlier row of the batch is a ConflictError for that caller only.
 * No promise settles before the COMMIT has returned; when the transaction
 * fails, it is rolled back and every caller of the batch gets the error its
 * write alone would have given (busy: retryable; disk full: permanent),
 * naming its own run. The whole batch is one synchronous call, so no other
 * write of this process runs inside it.
 */
export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;
  private commitCount = 0;

  constructor(private readonly db: SqliteConnection) {}

  /** Write transactions made so far (committed or not): how many writes shared each. */
  get commits(): number {
    return this.commitCount;
  }

  /** Queue a write; resolves with what its statements returned once its commit has returned. */
  write<T>(write: Write<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flushSome());
      }
    });
  }

  /** Queue an encoded row; resolves once its commit has returned, rejects with ConflictError if its seq is taken. */
  async append(row: EventRow): Promise<void> {
    const { runId, event } = row;
    const inserted = await this.write({
      run: () => insertEvent(this.db, row),
      what: `append seq ${event.seq} to run ${runId}`,
      facts: { runId, seq: event.seq, afterFix: AFTER_FIX.resume },
      oneStatement: true,
      bytes: row.body.bytes,
    });
    if (!inserted) {
      throw new ConflictError(`append to run ${runId}: seq ${event.seq} is already taken`, {
        runId,
        seq: event.seq,
      });
    }
  }

  /** Commit everything queued now, batch after batch (before closing the connection). */
  flushAll(): void {
    while (this.queue.length > 0) this.commitNext();
  }

  /** One bounded batch; what is left waits for the next check phase, so I/O runs in between. */
  private flushSome(): void {
    this.scheduled = false;
    this.commitNext();
    if (this.queue.length > 0 && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flushSome());
    }
  }

  private commitNext(): void {
    const batch = this.take();
    if (batch.length === 0) return;
    this.commitCount++;
    let results: unknown[];
    try {
      const runAll = () => batch.map((p) => p.write.run());
      // A lone one-statement write is its own transaction: exactly the write it would be unbatched.
      results =
        batch.length === 1 && batch[0]?.write.oneStatement
          ? this.db.statementRaw(runAll)
          : this.db.transactionRaw(runAll);
    } catch (error) {
      for (const { write, reject } of batch)
        reject(toRunlogError(error, write.what, this.db.file, write.facts));
      return;
    }
    batch.forEach(({ resolve }, i) => {
      resolve(results[i]);
    });
  }

  private take(): Pending[] {
    let count = 0;
    let bytes = 0;
    while (count < this.queue.length && count < MAX_BATCH_ROWS) {
      const next = this.queue[count]?.write.bytes ?? 0;
      if (count > 0 && bytes + next > MAX_BATCH_BYTES) break;
      bytes += next;
      count++;
    }
    return this.queue.splice(0, count);
  }
}
