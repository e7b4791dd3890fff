import { InvalidInputError } from "../../core/errors.ts";
import { runSql, type SqliteConnection } from "./connection.ts";
import { changed, expiredBy, nowSeconds } from "./rows.ts";

const EXPIRE_RUN = runSql("UPDATE heads SET expires_at = ? WHERE run_id = ?");
const DELETE_HEAD_IF_EXPIRED = runSql(`DELETE FROM heads WHERE run_id = ? AND ${expiredBy("?")}`);

/**
 * Set when a run expires (epoch seconds on its head), or never (null). One
 * update of one row: the run's events follow their head (reads hide them once
 * it has expired), so a run is hidden or visible whole. A run with no head is
 * left alone.
 */
export function expireRun(db: SqliteConnection, runId: string, at: Date | null): void {
  if (at !== null && !Number.isFinite(at.getTime())) {
    throw new InvalidInputError(`expire run ${runId}: expected a valid date or null`, { runId });
  }
  const expiresAt = at === null ? null : Math.ceil(at.getTime() / 1000);
  db.attempt(`expire run ${runId}`, () => db.statement(EXPIRE_RUN).run(expiresAt, runId), { runId });
}

/** At most this many runs are deleted in one transaction. */
export const EXPIRED_BATCH_RUNS = 200;
/** A batch stops taking runs once it has deleted this many events (a run is always deleted whole). */
export const EXPIRED_BATCH_EVENTS = 4000;

const DUE = `SELECT run_id FROM heads WHERE ${expiredBy("?")} LIMIT ${EXPIRED_BATCH_RUNS}`;
const DELETE_EVENTS = "DELETE FROM events WHERE run_id = ?";

/**
 * Delete one bounded batch of the runs whose expiry has passed (at most EXPIRED_BATCH_RUNS runs,
 * and no run more once EXPIRED_BATCH_EVENTS events are gone), each run whole (its head and its
 * events), in one short transaction: what DynamoDB's TTL does in the background. Reads already
 * treat those runs as absent, so nothing a reader sees changes. Undefined when another writer
 * holds the lock (the batch is left for later rather than queue behind it); else how many runs
 * it deleted, and whether more may be due. Costs one indexed lookup when nothing has expired.
 */
export function deleteExpiredBatch(db: SqliteConnection): { deleted: number; more: boolean } | undefined {
  const now = nowSeconds(db);
  const any = db.attempt("look for expired runs", () => db.statement(DUE).get(now));
  if (!any) return { deleted: 0, more: false };
  const batch = db.transactionIfFree("delete expired runs", () => {
    const due = db.statement(DUE).all(now);
    let deleted = 0;
    let events = 0;
    for (const { run_id: runId } of due) {
      if (events >= EXPIRED_BATCH_EVENTS) return { deleted, more: true };
      // The check is made again under the write lock: an expiry cleared since is kept.
      if (!changed(db.statement(DELETE_HEAD_IF_EXPIRED).run(runId as string, now))) continue;
      events += Number(db.statement(DELETE_EVENTS).run(runId as string).changes);
      deleted++;
    }
    return { deleted, more: due.length === EXPIRED_BATCH_RUNS };
  });
  return batch?.done;
}

/**
 * Delete one run's head and events if its expiry has passed; call inside a write transaction.
 * A run whose head has not expired (or that has none) is left alone. Costs one indexed
 * statement when the run is live.
 */
export function deleteIfExpired(db: SqliteConnection, runId: string): void {
  const gone = db.statement(DELETE_HEAD_IF_EXPIRED).run(runId, nowSeconds(db));
  if (changed(gone)) db.statement(DELETE_EVENTS).run(runId);
}
