import { RUN_STATUSES } from "../../core/status.ts";
import type { ListOptions, RunPage } from "../../ports/eventStore.ts";
import {
  comparatorOf,
  decodePosition,
  describeListing,
  encodePosition,
  listedStatuses,
  listOrder,
  pageLimit,
  updatedBound,
} from "../paging.ts";
import type { StoreContext } from "./context.ts";
import { type HeadsPartition, mergedHeads } from "./indexedHeads.ts";
import { statusShardsOf } from "./shards.ts";
import { PARENT_INDEX, STATUS_SHARD_INDEX } from "./table.ts";

/**
 * A page of run-heads, newest update first across pages (ties by run id), or oldest first, as the
 * SQLite store lists them. Every read is a Query of an index, never a Scan: a run's forks are one
 * partition of the parent index (the statuses filter it); otherwise every shard of each status
 * asked for (or of every one) is read, in parallel, and merged (mergedHeads), so the shards are
 * invisible to the caller and the order holds across pages.
 */
export async function listRuns(ctx: StoreContext, options: ListOptions = {}): Promise<RunPage> {
  const limit = pageLimit(options.limit);
  const order = listOrder(options);
  const after = options.cursor === undefined ? undefined : decodePosition(options.cursor, order);
  const upTo = updatedBound(options);
  const statuses = listedStatuses(options);
  const partitions: HeadsPartition[] =
    options.parent !== undefined
      ? [{ index: PARENT_INDEX, value: options.parent, ...(statuses === undefined ? {} : { statuses }) }]
      : (statuses ?? RUN_STATUSES).flatMap((status) =>
          statusShardsOf(status, ctx.statusShards).map((value) => ({ index: STATUS_SHARD_INDEX, value })),
        );
  const range = { order, ...(after === undefined ? {} : { after }), ...(upTo === undefined ? {} : { upTo }) };
  // One more than the page: a head beyond it, in any partition, means there is a next page.
  const heads = (await mergedHeads(ctx, partitions, describeListing(options), range, limit + 1)).sort(
    comparatorOf(order),
  );
  const runs = heads.slice(0, limit);
  const last = runs.at(-1);
  return heads.length > limit && last
    ? { runs, cursor: encodePosition({ updatedAt: last.updatedAt, runId: last.runId }, order) }
    : { runs };
}
