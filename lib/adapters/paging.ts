import { InvalidInputError } from "../core/errors.ts";
import type { RunStatus } from "../core/status.ts";
import type { ListOptions, ListOrder } from "../ports/eventStore.ts";

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1_000;

/** A listRuns page size: the default when absent, at most 1,000, InvalidInputError when not a positive integer. */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new InvalidInputError(`limit: expected a positive integer, got ${limit}`);
  }
  return Math.min(limit, MAX_LIMIT);
}

/** How much of a refused cursor an error quotes: enough to recognise it, never a whole forged blob. */
const QUOTED_CURSOR_CHARS = 40;
/** How every store writes updatedAt: Date.toISOString(). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The error for a listRuns cursor the store did not issue: InvalidInputError naming the cursor (quoted,
 * cut short) and what is wrong with it, never a silent first page.
 */
export function invalidCursor(cursor: string, problem: string, cause?: unknown): InvalidInputError {
  const shown = cursor.length > QUOTED_CURSOR_CHARS ? `${cursor.slice(0, QUOTED_CURSOR_CHARS)}…` : cursor;
  return new InvalidInputError(
    `cursor ${JSON.stringify(shown)}: expected the cursor of an earlier page of this listing, as it came (${problem})`,
    { field: "cursor", ...(cause === undefined ? {} : { cause }) },
  );
}

/** Where a page of run-heads ended, in the order every store lists them: updatedAt, then runId, both descending. */
export interface ListPosition {
  updatedAt: string;
  runId: string;
}

/**
 * Callers must treat the cursor as opaque, so its encoding can change with the query. An
 * oldest-first cursor says so (`o`), so it is never taken for a newest-first one.
 */
export function encodePosition(position: ListPosition, order: ListOrder = "newestFirst"): string {
  const fields = { u: position.updatedAt, r: position.runId, ...(order === "oldestFirst" ? { o: 1 } : {}) };
  return Buffer.from(JSON.stringify(fields)).toString("base64url");
}

/** A cursor back into a position, refusing anything listRuns did not issue (or issued for the other order). */
export function decodePosition(cursor: string, order: ListOrder = "newestFirst"): ListPosition {
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
  // A position is an update time as the store wrote it (ISO 8601) and a run id: anything else would
  // compare as some other place in the list, a page that silently starts somewhere else.
  if (typeof u !== "string" || typeof r !== "string" || r === "" || !ISO_TIME.test(u)) {
    throw invalidCursor(cursor, "it names no position in the list of runs");
  }
  const oldest = (parsed as { o?: unknown }).o === 1;
  if (oldest !== (order === "oldestFirst")) {
    throw invalidCursor(cursor, `it continues a listing in the other order, not ${order}`);
  }
  return { updatedAt: u, runId: r };
}

/** The order a listing asks for; InvalidInputError for anything else. */
export function listOrder({ order }: ListOptions): ListOrder {
  if (order === undefined || order === "newestFirst" || order === "oldestFirst")
    return order ?? "newestFirst";
  throw new InvalidInputError(`order: expected "newestFirst" or "oldestFirst", got ${JSON.stringify(order)}`);
}

/** The comparator of an order: negative when `a` is listed before `b`. */
export function comparatorOf(order: ListOrder): (a: ListPosition, b: ListPosition) => number {
  return order === "newestFirst" ? newestFirst : (a, b) => newestFirst(b, a);
}

/** The `updatedAtMost` bound of a listing; InvalidInputError when it is given and not a non-empty string. */
export function updatedBound({ updatedAtMost }: ListOptions): string | undefined {
  if (updatedAtMost === undefined) return undefined;
  if (typeof updatedAtMost !== "string" || updatedAtMost === "") {
    throw new InvalidInputError(`updatedAtMost: expected an ISO time, got ${JSON.stringify(updatedAtMost)}`);
  }
  return updatedAtMost;
}

/** Newest update first, ties by run id descending: the order of every page and across pages. */
export function newestFirst(a: ListPosition, b: ListPosition): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0;
}

/** The statuses a listing keeps, undefined for all; InvalidInputError for an empty list. */
export function listedStatuses({ status }: ListOptions): readonly RunStatus[] | undefined {
  if (status === undefined) return undefined;
  const statuses = typeof status === "string" ? [status] : status;
  if (statuses.length === 0)
    throw new InvalidInputError("status: expected a status or a list of at least one");
  return statuses;
}

/** What a listing reads, for its errors: "list failed or running forks of run r1". */
export function describeListing(options: ListOptions): string {
  const statuses = listedStatuses(options);
  const which = statuses === undefined ? "" : `${statuses.join(" or ")} `;
  return `list ${which}${options.parent === undefined ? "runs" : `forks of run ${options.parent}`}`;
}
