import { QueryCommand } from "@aws-sdk/client-dynamodb";
import { MissingIndexError } from "../../core/errors.ts";
import type { RunStatus } from "../../core/status.ts";
import type { RunHead } from "../../ports/eventStore.ts";
import { type ListPosition, newestFirst } from "../paging.ts";
import type { StoreContext } from "./context.ts";
import { toRunlogError } from "./errors.ts";
import { decodeHead, type Item, isExpired, str } from "./items.ts";
import { PARENT_INDEX, STATUS_INDEX } from "./table.ts";

/** Each heads index's partition key: the heads of one status, or the forks of one run. */
const PARTITION_KEY = { [STATUS_INDEX]: "status", [PARENT_INDEX]: "parentRunId" } as const;

/** One partition of a heads index, sorted by updatedAt. */
export interface HeadsPartition {
  index: keyof typeof PARTITION_KEY;
  /** The partition key's value: a status, or the parent's run id. */
  value: string;
  /** Only heads in one of these statuses (a filter, for the parent index). */
  statuses?: readonly RunStatus[];
}

/**
 * At least `want` heads of a partition listed after `after` (newest first), or all there are,
 * read by Query (partition key, sort: updatedAt). The index keeps no order among heads of equal
 * updatedAt, so every head tied with the last one kept is read too: the caller sorts by runId and
 * cuts, and no tied head is skipped or listed twice across pages.
 */
export async function headsOf(
  ctx: StoreContext,
  partition: HeadsPartition,
  what: string,
  after: ListPosition | undefined,
  want: number,
): Promise<RunHead[]> {
  const heads: RunHead[] = [];
  let startKey: Item | undefined;
  do {
    const out = await send(ctx, partition, what, query(ctx, partition, after, want, startKey));
    const now = ctx.now();
    for (const item of out.Items ?? []) {
      // Expired runs are gone to readers, even while DynamoDB has not deleted them yet.
      const head = isExpired(item, now) ? undefined : decodeHead(item);
      if (head === undefined || (after !== undefined && newestFirst(head, after) <= 0)) continue;
      if (partition.statuses !== undefined && !partition.statuses.includes(head.status)) continue;
      const last = heads[want - 1];
      if (last !== undefined && head.updatedAt !== last.updatedAt) return heads;
      heads.push(head);
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey !== undefined);
  return heads;
}

function query(
  ctx: StoreContext,
  partition: HeadsPartition,
  after: ListPosition | undefined,
  want: number,
  startKey: Item | undefined,
): QueryCommand {
  return new QueryCommand({
    TableName: ctx.tableName,
    IndexName: partition.index,
    KeyConditionExpression: after === undefined ? "#key = :key" : "#key = :key AND updatedAt <= :after",
    // A name placeholder always: `status` is a DynamoDB reserved word.
    ExpressionAttributeNames: { "#key": PARTITION_KEY[partition.index] },
    ExpressionAttributeValues: {
      ":key": str(partition.value),
      ...(after === undefined ? {} : { ":after": str(after.updatedAt) }),
    },
    ScanIndexForward: false,
    Limit: want,
    ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
  });
}

async function send(ctx: StoreContext, partition: HeadsPartition, what: string, command: QueryCommand) {
  try {
    return await ctx.client.send(command);
  } catch (error) {
    throw missingIndex(ctx, partition, what, error) ?? toRunlogError(error, what, ctx.tableName);
  }
}

/**
 * A table made before the parent index existed answers a Query of it with a ValidationException
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
