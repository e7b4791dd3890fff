import { RUN_STATUSES } from "../../core/status.ts";
import type { ListOptions, RunPage } from "../../ports/eventStore.ts";
import {
  decodePosition,
  describeListing,
  encodePosition,
  listedStatuses,
  newestFirst,
  pageLimit,
} from "../paging.ts";
import type { StoreContext } from "./context.ts";
import { type HeadsPartition, headsOf } from "./indexedHeads.ts";
import { PARENT_INDEX, STATUS_INDEX } from "./table.ts";

/**
 * A page of run-heads, newest update first across pages (ties by run id), as the SQLite store
 * lists them. Every read is a Query of an index, never a Scan: a run's forks are one partition of
 * the parent index (the statuses filter it); otherwise each status asked for (or every one) is queried for one page more than
 * asked (in parallel) and the answers are merged, so a page costs up to one Query per status and
 * the order holds across pages.
 */
export async function listRuns(ctx: StoreContext, options: ListOptions = {}): Promise<RunPage> {
  const limit = pageLimit(options.limit);
  const after = options.cursor === undefined ? undefined : decodePosition(options.cursor);
  const statuses = listedStatuses(options);
  const partitions: HeadsPartition[] =
    options.parent !== undefined
      ? [{ index: PARENT_INDEX, value: options.parent, ...(statuses === undefined ? {} : { statuses }) }]
      : (statuses ?? RUN_STATUSES).map((status) => ({ index: STATUS_INDEX, value: status }));
  const what = describeListing(options);
  // One more than the page: a head beyond it, in any partition, means there is a next page.
  const found = await Promise.all(
    partitions.map((partition) => headsOf(ctx, partition, what, after, limit + 1)),
  );
  const heads = found.flat().sort(newestFirst);
  const runs = heads.slice(0, limit);
  const last = runs.at(-1);
  return heads.length > limit && last
    ? { runs, cursor: encodePosition({ updatedAt: last.updatedAt, runId: last.runId }) }
    : { runs };
}
