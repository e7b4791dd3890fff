import type { ListOptions, RunHead, RunPage } from "../../ports/eventStore.ts";
import {
  decodePosition,
  describeListing,
  encodePosition,
  listedStatuses,
  listOrder,
  pageLimit,
  updatedBound,
} from "../paging.ts";
import type { SqliteConnection } from "./connection.ts";
import type { SQLInputValue } from "./nodeSqlite.ts";
import { decodeHeadRow, expiredBy, HEAD_COLUMNS, nowSeconds } from "./rows.ts";

/**
 * A page of run-heads, newest update first across pages (or oldest first), with or without a
 * status filter, of every run or only a run's forks (an index serves each
 * order). Expired runs are left out.
 */
export function listRuns(db: SqliteConnection, options: ListOptions = {}): RunPage {
  const limit = pageLimit(options.limit);
  const order = listOrder(options);
  const after = options.cursor === undefined ? undefined : decodePosition(options.cursor, order);
  const upTo = updatedBound(options);
  const where = [`NOT ${expiredBy("?")}`];
  const params: SQLInputValue[] = [nowSeconds(db)];
  const statuses = listedStatuses(options);
  if (statuses !== undefined) {
    where.push(`status IN (${statuses.map(() => "?").join(", ")})`);
    params.push(...statuses);
  }
  if (options.parent !== undefined) {
    where.push("parent_run_id = ?");
    params.push(options.parent);
  }
  if (options.owner !== undefined) {
    where.push("owner_scope = ?");
    params.push(options.owner);
  }
  if (upTo !== undefined) {
    where.push("updated_at <= ?");
    params.push(upTo);
  }
  if (after) {
    where.push(`(updated_at, run_id) ${order === "newestFirst" ? "<" : ">"} (?, ?)`);
    params.push(after.updatedAt, after.runId);
  }
  const direction = order === "newestFirst" ? "DESC" : "ASC";
  // One row more than the page, to know whether there is a next page.
  const sql =
    `SELECT ${HEAD_COLUMNS} FROM heads WHERE ${where.join(" AND ")} ` +
    `ORDER BY updated_at ${direction}, run_id ${direction} LIMIT ?`;
  const rows = db.attempt(describeListing(options), () => db.statement(sql).all(...params, limit + 1));
  const page = rows.slice(0, limit);
  const runs = page.map(decodeHeadRow).filter((head): head is RunHead => head !== undefined);
  const last = page.at(-1);
  return rows.length > limit && last
    ? {
        runs,
        cursor: encodePosition({ updatedAt: String(last.updated_at), runId: String(last.run_id) }, order),
      }
    : { runs };
}

/** How many of an owner scope's heads are `running`, counted up to `atMost` (heads_running_by_owner). */
export function countRunning(db: SqliteConnection, ownerScope: string, atMost: number): number {
  const sql =
    "SELECT count(*) AS n FROM (SELECT 1 FROM heads WHERE owner_scope = ? AND status = 'running' " +
    `AND NOT ${expiredBy("?")} LIMIT ?)`;
  const row = db.attempt(`count the running runs of ${ownerScope}`, () =>
    db.statement(sql).get(ownerScope, nowSeconds(db), atMost),
  );
  return Number(row?.n ?? 0);
}
