import type { ListOptions, RunHead, RunPage } from "../../ports/eventStore.ts";
import { invalidCursor, pageLimit } from "../paging.ts";
import type { SqliteConnection } from "./connection.ts";
import type { SqlValue } from "./nodeSqlite.ts";
import { decodeHeadRow, expiredBy, HEAD_COLUMNS, nowSeconds } from "./rows.ts";

/** Where a page ended, in the (updated_at, run_id) order heads are listed in. */
interface Position {
  updatedAt: string;
  runId: string;
}

/** Callers must treat the cursor as opaque, so its encoding can change with the query. */
function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify({ u: position.updatedAt, r: position.runId })).toString("base64url");
}

/** A cursor back into a position, refusing anything listRuns did not issue. */
function decodeCursor(cursor: string): Position {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch (error) {
    throw invalidCursor(cursor, "it is not base64url JSON", error);
  }
  const { u, r } = (typeof parsed === "object" && parsed !== null ? parsed : {}) as {
    u?: unknown;
    r?: unknown;
  };
  if (typeof u !== "string" || typeof r !== "string" || r === "") {
    throw invalidCursor(cursor, "it names no position in the list of runs");
  }
  return { updatedAt: u, runId: r };
}

/**
 * A page of run-heads, newest update first across pages, with or without a
 * status filter (an index serves each order). Expired runs are left out.
 */
export function listRuns(db: SqliteConnection, options: ListOptions = {}): RunPage {
  const limit = pageLimit(options.limit);
  const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
  const where = [`NOT ${expiredBy("?")}`];
  const params: SqlValue[] = [nowSeconds(db)];
  if (options.status !== undefined) {
    where.push("status = ?");
    params.push(options.status);
  }
  if (after) {
    where.push("(updated_at, run_id) < (?, ?)");
    params.push(after.updatedAt, after.runId);
  }
  // One row more than the page, to know whether there is a next page.
  const sql =
    `SELECT ${HEAD_COLUMNS} FROM heads WHERE ${where.join(" AND ")} ` +
    "ORDER BY updated_at DESC, run_id DESC LIMIT ?";
  const rows = db.attempt(options.status ? `list ${options.status} runs` : "list runs", () =>
    db.statement(sql).all(...params, limit + 1),
  );
  const page = rows.slice(0, limit);
  const runs = page.map(decodeHeadRow).filter((head): head is RunHead => head !== undefined);
  const last = page.at(-1);
  return rows.length > limit && last
    ? { runs, cursor: encodeCursor({ updatedAt: String(last.updated_at), runId: String(last.run_id) }) }
    : { runs };
}
