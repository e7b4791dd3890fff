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
import { OWNER_INDEX, PARENT_INDEX, STATUS_SHARD_INDEX } from "./table.ts";

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
  const filter = {
    ...(statuses === undefined ? {} : { statuses }),
    ...(options.owner === undefined ? {} : { owner: options.owner }),
  };
  // A run's forks are one small partition, whoever asks; else an owner's runs are one partition.
  const partitions: HeadsPartition[] =
    options.parent !== undefined
      ? [{ index: PARENT_INDEX, value: options.parent, ...filter }]
      : options.owner !== undefined
        ? [{ index: OWNER_INDEX, value: options.owner, ...(statuses === undefined ? {} : { statuses }) }]
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

/**
 * How many of an owner scope's heads are `running`, up to `atMost`: the owner's partition of the
 * owner index, newest first, read until `atMost` running heads are found or it ends. Costs what
 * that owner's runs cost, never the table's.
 */
export async function countRunning(ctx: StoreContext, ownerScope: string, atMost: number): Promise<number> {
  const partition: HeadsPartition = { index: OWNER_INDEX, value: ownerScope, statuses: ["running"] };
  const heads = await mergedHeads(
    ctx,
    [partition],
    `count the running runs of ${ownerScope}`,
    { order: "newestFirst" },
    atMost,
  );
  return heads.length;
}
