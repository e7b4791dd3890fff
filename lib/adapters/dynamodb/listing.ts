import { RUN_STATUSES } from "../../core/status.ts";
import type { ListOptions, RunPage } from "../../ports/eventStore.ts";
import { decodePosition, encodePosition, newestFirst, pageLimit } from "../paging.ts";
import type { StoreContext } from "./context.ts";
import { headsOfStatus } from "./statusHeads.ts";

/**
 * A page of run-heads, newest update first across pages (ties by run id), as the SQLite store
 * lists them. Every read is a Query of the status index, never a Scan: without a status, each
 * status is queried for one page more than asked (in parallel) and the answers are merged, so
 * a page costs up to one Query per status and the order holds across pages.
 */
export async function listRuns(ctx: StoreContext, options: ListOptions = {}): Promise<RunPage> {
  const limit = pageLimit(options.limit);
  const after = options.cursor === undefined ? undefined : decodePosition(options.cursor);
  const statuses = options.status === undefined ? RUN_STATUSES : [options.status];
  // One more than the page: a head beyond it, in any status, means there is a next page.
  const found = await Promise.all(statuses.map((status) => headsOfStatus(ctx, status, after, limit + 1)));
  const heads = found.flat().sort(newestFirst);
  const runs = heads.slice(0, limit);
  const last = runs.at(-1);
  return heads.length > limit && last
    ? { runs, cursor: encodePosition({ updatedAt: last.updatedAt, runId: last.runId }) }
    : { runs };
}
