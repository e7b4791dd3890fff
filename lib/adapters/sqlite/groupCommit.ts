import { ConflictError } from "../../core/errors.ts";
import type { SqliteConnection } from "./connection.ts";
import { toRunlogError } from "./errors.ts";
import { type EventRow, insertEvent } from "./log.ts";

/** At most this many rows in one commit, so one commit never holds the event loop long. */
export const MAX_BATCH_ROWS = 256;
/** At most about this many body bytes in one commit (a single larger row still goes alone). */
export const MAX_BATCH_BYTES = 4 * 1024 * 1024;

interface Pending {
  row: EventRow;
  bytes: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const what = ({ runId, event }: EventRow) => `append seq ${event.seq} to run ${runId}`;

/**
 * Appends that arrive in one turn of the event loop commit together: one
 * BEGIN IMMEDIATE … COMMIT (one fsync) for all of them instead of one per
 * event. A batch is gathered until the loop's check phase (setImmediate), so
 * every I/O callback of that turn joins it and a lone append waits no longer
 * than the rest of the turn. Each row is the same conditional insert as a
 * single append, in the order queued, so a seq taken by a committed row or by
 * an earlier row of the batch is a ConflictError for that caller only. No
 * promise settles before the COMMIT has returned; when the transaction fails,
 * it is rolled back and every caller of the batch gets the error a single
 * append would have given (busy: retryable; disk full: permanent), naming its
 * own run and seq. The whole batch is one synchronous call, so no other write
 * of this process runs inside it.
 */
export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;
  private commitCount = 0;

  constructor(private readonly db: SqliteConnection) {}

  /** Write transactions made so far (committed or not): how many appends shared each. */
  get commits(): number {
    return this.commitCount;
  }

  /** Queue an encoded row; resolves once its commit has returned, rejects with ConflictError if its seq is taken. */
  append(row: EventRow): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ row, bytes: bodyBytes(row), resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flushSome());
      }
    });
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
    let inserted: boolean[];
    try {
      const insertAll = () => batch.map((p) => insertEvent(this.db, p.row));
      // A lone row is one statement, so its own transaction: exactly the write of an append before
      // group commit, without BEGIN and COMMIT round trips.
      inserted = batch.length === 1 ? this.db.statementRaw(insertAll) : this.db.transactionRaw(insertAll);
    } catch (error) {
      for (const { row, reject } of batch) {
        reject(toRunlogError(error, what(row), this.db.file, { runId: row.runId, seq: row.event.seq }));
      }
      return;
    }
    batch.forEach(({ row, resolve, reject }, i) => {
      if (inserted[i]) {
        resolve();
        return;
      }
      const { runId, event } = row;
      reject(
        new ConflictError(`append to run ${runId}: seq ${event.seq} is already taken`, {
          runId,
          seq: event.seq,
        }),
      );
    });
  }

  private take(): Pending[] {
    let count = 0;
    let bytes = 0;
    while (count < this.queue.length && count < MAX_BATCH_ROWS) {
      const next = this.queue[count]?.bytes ?? 0;
      if (count > 0 && bytes + next > MAX_BATCH_BYTES) break;
      bytes += next;
      count++;
    }
    return this.queue.splice(0, count);
  }
}

const bodyBytes = ({ body }: EventRow): number => body.data.byteLength;
