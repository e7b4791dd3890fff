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
  db.attempt(`expire run ${runId}`, () => db.statement(EXPIRE_RUN).run(expiresAt, runId));
}

/**
 * Delete every run whose expiry has passed: its head and its events, in one
 * transaction. What DynamoDB's TTL does in the background, done when a process
 * opens the store; until then reads already treat those runs as absent. Costs
 * one indexed lookup when nothing has expired.
 */
export function deleteExpired(db: SqliteConnection): number {
  const now = nowSeconds(db);
  const due = `SELECT run_id FROM heads WHERE ${expiredBy("?")}`;
  const any = db.attempt("look for expired runs", () => db.statement(`${due} LIMIT 1`).get(now));
  if (!any) return 0;
  return db.transaction("delete expired runs", () => {
    db.statement(`DELETE FROM events WHERE run_id IN (${due})`).run(now);
    return Number(db.statement(`DELETE FROM heads WHERE run_id IN (${due})`).run(now).changes);
  });
}

/**
 * Delete one run's head and events if its expiry has passed; call inside a write transaction.
 * A run whose head has not expired (or that has none) is left alone. Costs one indexed
 * statement when the run is live.
 */
export function deleteIfExpired(db: SqliteConnection, runId: string): void {
  const gone = db.statement(DELETE_HEAD_IF_EXPIRED).run(runId, nowSeconds(db));
  if (changed(gone)) db.statement("DELETE FROM events WHERE run_id = ?").run(runId);
}
