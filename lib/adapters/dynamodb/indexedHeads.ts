import { QueryCommand } from "@aws-sdk/client-dynamodb";
import { MissingIndexError } from "../../core/errors.ts";
import { ownerScope } from "../../core/principal.ts";
import type { RunStatus } from "../../core/status.ts";
import type { ListOrder, RunHead } from "../../ports/eventStore.ts";
import { comparatorOf, type ListPosition } from "../paging.ts";
import type { StoreContext } from "./context.ts";
import { toRunlogError } from "./errors.ts";
import { decodeHead, type Item, isExpired, readString, str } from "./items.ts";
import { STATUS_SHARD_ATTRIBUTE } from "./shards.ts";
import { OWNER_INDEX, PARENT_INDEX, STATUS_SHARD_INDEX } from "./table.ts";

/** Each heads index's partition key: the heads of one status's shard, or the forks of one run. */
const PARTITION_KEY = {
  [STATUS_SHARD_INDEX]: STATUS_SHARD_ATTRIBUTE,
  [PARENT_INDEX]: "parentRunId",
  [OWNER_INDEX]: "ownerScope",
} as const;

/** One partition of a heads index, sorted by updatedAt. */
export interface HeadsPartition {
  index: keyof typeof PARTITION_KEY;
  /** The partition key's value: a status's shard (`running#3`), or the parent's run id. */
  value: string;
  /** Only heads in one of these statuses (a filter, for the parent and owner indexes). */
  statuses?: readonly RunStatus[];
  /** Only heads of this owner scope (a filter, for a run's forks listed by an owner). */
  owner?: string;
}

/** Which heads a listing wants, in which order. */
export interface HeadsRange {
  order: ListOrder;
  /** Only heads listed after this position (the cursor's). */
  after?: ListPosition;
  /** Only heads with updatedAt <= this: part of the key condition, never a filter of what was read. */
  upTo?: string;
}

/** How far one partition has been read. */
interface Reading {
  partition: HeadsPartition;
  heads: RunHead[];
  startKey?: Item;
  done: boolean;
  /** The updatedAt the partition was read up to (its LastEvaluatedKey's): nothing unread sorts before it. */
  frontier?: string;
}

/**
 * The first `want` heads of several partitions merged in the range's order (fewer when there are no
 * more), each partition read by Query (partition key, sort: updatedAt) oldest or newest first, in
 * parallel. A k-way merge: each partition is read a slice at a time from where it stopped, and a
 * head is final once it sorts strictly before every unfinished partition's frontier, so each head
 * is read about once however many partitions there are. The index keeps no order among heads of
 * equal updatedAt; a head tied with a frontier waits until that tie is read through, so none is
 * skipped or listed twice across pages (the caller's cursor is updatedAt and runId).
 */
export async function mergedHeads(
  ctx: StoreContext,
  partitions: readonly HeadsPartition[],
  what: string,
  range: HeadsRange,
  want: number,
): Promise<RunHead[]> {
  const compare = comparatorOf(range.order);
  const before = (a: string, b: string) => (range.order === "newestFirst" ? a > b : a < b);
  const readings: Reading[] = partitions.map((partition) => ({ partition, heads: [], done: false }));
  const slice = Math.ceil(want / Math.max(1, partitions.length)) + 1;
  const readOn = (reading: Reading) => readSlice(ctx, reading, what, range, slice);
  await Promise.all(readings.map(readOn));
  for (;;) {
    const all = readings.flatMap((reading) => reading.heads).sort(compare);
    const open = readings.filter((reading) => !reading.done);
    if (open.length === 0) return all.slice(0, want);
    const first = open.map((reading) => reading.frontier!).reduce((a, b) => (before(a, b) ? a : b));
    const final = all.filter((head) => before(head.updatedAt, first));
    if (final.length >= want) return final.slice(0, want);
    // Read on where a head of this page may still be unread: partitions not past the want-th head.
    const cut = all[want - 1]?.updatedAt;
    await Promise.all(
      open.filter((reading) => cut === undefined || !before(cut, reading.frontier!)).map(readOn),
    );
  }
}

async function readSlice(
  ctx: StoreContext,
  reading: Reading,
  what: string,
  range: HeadsRange,
  limit: number,
): Promise<void> {
  const { partition } = reading;
  const out = await send(ctx, partition, what, query(ctx, partition, range, limit, reading.startKey));
  const compare = comparatorOf(range.order);
  const now = ctx.now();
  for (const item of out.Items ?? []) {
    // Expired runs are gone to readers, even while DynamoDB has not deleted them yet.
    const head = isExpired(item, now) ? undefined : decodeHead(item);
    if (head === undefined || (range.after !== undefined && compare(head, range.after) <= 0)) continue;
    if (partition.statuses !== undefined && !partition.statuses.includes(head.status)) continue;
    if (
      partition.owner !== undefined &&
      (head.owner === undefined || ownerScope(head.owner) !== partition.owner)
    )
      continue;
    reading.heads.push(head);
  }
  const startKey = out.LastEvaluatedKey;
  const frontier = startKey === undefined ? undefined : readString(startKey, "updatedAt");
  if (startKey === undefined || frontier === undefined) {
    reading.done = true;
    delete reading.startKey;
    delete reading.frontier;
  } else {
    reading.startKey = startKey;
    reading.frontier = frontier;
  }
}

function query(
  ctx: StoreContext,
  partition: HeadsPartition,
  range: HeadsRange,
  limit: number,
  startKey: Item | undefined,
): QueryCommand {
  const { low, high } = bounds(range);
  const condition =
    low !== undefined && high !== undefined
      ? " AND updatedAt BETWEEN :low AND :high"
      : low !== undefined
        ? " AND updatedAt >= :low"
        : high !== undefined
          ? " AND updatedAt <= :high"
          : "";
  return new QueryCommand({
    TableName: ctx.tableName,
    IndexName: partition.index,
    KeyConditionExpression: `#key = :key${condition}`,
    // A name placeholder always: `status` is a DynamoDB reserved word.
    ExpressionAttributeNames: { "#key": PARTITION_KEY[partition.index] },
    ExpressionAttributeValues: {
      ":key": str(partition.value),
      ...(low === undefined ? {} : { ":low": str(low) }),
      ...(high === undefined ? {} : { ":high": str(high) }),
    },
    ScanIndexForward: range.order === "oldestFirst",
    Limit: limit,
    // paged by hand: one page per call, its key kept (as the frontier) between calls for the caller's cursor
    ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
  });
}

/** The updatedAt range a listing reads: the cursor bounds one end (inclusive: ties), `upTo` the top. */
function bounds({ order, after, upTo }: HeadsRange): { low?: string; high?: string } {
  if (order === "oldestFirst") {
    if (after !== undefined && upTo !== undefined && after.updatedAt > upTo) return { low: upTo, high: upTo };
    return {
      ...(after === undefined ? {} : { low: after.updatedAt }),
      ...(upTo === undefined ? {} : { high: upTo }),
    };
  }
  const high =
    after === undefined ? upTo : upTo === undefined || after.updatedAt < upTo ? after.updatedAt : upTo;
  return high === undefined ? {} : { high };
}

async function send(ctx: StoreContext, partition: HeadsPartition, what: string, command: QueryCommand) {
  try {
    return await ctx.client.send(command);
  } catch (error) {
    throw missingIndex(ctx, partition, what, error) ?? toRunlogError(error, what, ctx.tableName);
  }
}

/**
 * A table made before an index existed answers a Query of it with a ValidationException
 * ("The table does not have the specified index"): say which index, and how to get it.
 */
function missingIndex(
  ctx: StoreContext,
  partition: HeadsPartition,
  what: string,
  error: unknown,
): MissingIndexError | undefined {
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  if (name !== "ValidationException" || !/specified index/i.test(String(message))) return undefined;
  return new MissingIndexError(
    ctx.tableName,
    partition.index,
    `${what}: table ${ctx.tableName} has no index ${partition.index} (it was made by an older ` +
      "runlog); deploy runlog's table construct again (cdk deploy adds the index)",
    { cause: error },
  );
}
