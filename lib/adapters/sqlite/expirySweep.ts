import { errorMessage } from "../../core/errors.ts";
import type { SqliteConnection } from "./connection.ts";
import { deleteExpiredBatch } from "./expiry.ts";

/** How often a store that stays open deletes the runs whose expiry has passed. */
export const EXPIRY_SWEEP_MS = 5 * 60_000;
/** The pause between two batches of a backlog: other writers (other processes too) take the lock in it. */
const BETWEEN_BATCHES_MS = 25;
/** How soon a batch that found the lock taken is tried again. */
const WHEN_BUSY_MS = 1_000;

/**
 * Deletes the runs whose expiry has passed, in the background of a process that has the store
 * open, as DynamoDB's TTL does: one bounded batch at open (deleteExpiredBatch), then a backlog
 * batch after batch with a pause between, then one batch every `everyMs`. Its timer never keeps a
 * process alive by itself, and stops when the store closes. Housekeeping never fails the store: a
 * batch that fails is told once (`warn`) and tried again at the next interval; reads hide expired
 * runs meanwhile.
 */
export class ExpirySweep {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private warned = false;

  constructor(
    private readonly db: SqliteConnection,
    private readonly everyMs: number,
    private readonly warn: (line: string) => void,
  ) {}

  /** Delete one batch now, and schedule the next. */
  start(): void {
    this.batch();
  }

  /** Clear the timer: no batch runs after this. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private batch(): void {
    this.timer = undefined;
    if (this.stopped || !this.db.isOpen) return;
    let next = this.everyMs;
    try {
      const done = deleteExpiredBatch(this.db);
      if (done === undefined) next = Math.min(WHEN_BUSY_MS, this.everyMs);
      else if (done.more) next = BETWEEN_BATCHES_MS;
    } catch (error) {
      if (!this.warned) this.warn(`runlog: expired runs could not be deleted: ${errorMessage(error)}`);
      this.warned = true;
    }
    this.timer = setTimeout(() => this.batch(), next);
    this.timer.unref();
  }
}
