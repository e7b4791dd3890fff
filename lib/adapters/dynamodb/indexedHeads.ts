import { QueryCommand } from "@aws-sdk/client-dynamodb";
import { PermanentError } from "../../core/errors.ts";
import type { RunStatus } from "../../core/status.ts";
import type { RunHead } from "../../ports/eventStore.ts";
import { type ListPosition, newestFirst } from "../paging.ts";
import type { StoreContext } from "./context.ts";
import { toRunlogError } from "./errors.ts";
import { decodeHead, type Item, isExpired, str } from "./items.ts";
import { PARENT_INDEX, STATUS_INDEX } from "./table.ts";

/** One partition of a heads index, sorted by updatedAt: the heads of one status, or one run's forks. */
export interface HeadsPartition {
  index: typeof STATUS_INDEX | typeof PARENT_INDEX;
  /** The index's partition key and the value to read. */
  attribute: "status" | "parentRunId";
  value: string;
  /** Only heads in this status (a filter, for the parent index). */
  status?: RunStatus;
  /** What is read, for errors: "list failed runs". */
  what: string;
}

export const statusPartition = (status: RunStatus): HeadsPartition => ({
  index: STATUS_INDEX,
  attribute: "status",
  value: status,
  what: `list ${status} runs`,
});

export const forksPartition = (
  parent: string,
  status: RunStatus | undefined,
  what: string,
): HeadsPartition => ({
  index: PARENT_INDEX,
  attribute: "parentRunId",
  value: parent,
  ...(status === undefined ? {} : { status }),
  what,
});

/**
 * At least `want` heads of a partition listed after `after` (newest first), or all there are,
 * read by Query (partition key, sort: updatedAt). The index keeps no order among heads of equal
 * updatedAt, so every head tied with the last one kept is read too: the caller sorts by runId and
 * cuts, and no tied head is skipped or listed twice across pages.
 */
export async function headsOf(
  ctx: StoreContext,
  partition: HeadsPartition,
  after: ListPosition | undefined,
  want: number,
): Promise<RunHead[]> {
  const heads: RunHead[] = [];
  let startKey: Item | undefined;
  do {
    const out = await send(ctx, partition, query(ctx, partition, after, want, startKey));
    const now = ctx.now();
    for (const item of out.Items ?? []) {
      // Expired runs are gone to readers, even while DynamoDB has not deleted them yet.
      const head = isExpired(item, now) ? undefined : decodeHead(item);
      if (head === undefined || (after !== undefined && newestFirst(head, after) <= 0)) continue;
      if (partition.status !== undefined && head.status !== partition.status) continue;
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
    ExpressionAttributeNames: { "#key": partition.attribute },
    ExpressionAttributeValues: {
      ":key": str(partition.value),
      ...(after === undefined ? {} : { ":after": str(after.updatedAt) }),
    },
    ScanIndexForward: false,
    Limit: want,
    ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
  });
}

async function send(ctx: StoreContext, partition: HeadsPartition, command: QueryCommand) {
  try {
    return await ctx.client.send(command);
  } catch (error) {
    throw missingIndex(ctx, partition, error) ?? toRunlogError(error, partition.what, ctx.tableName);
  }
}

/**
 * A table made before the parent index existed answers a Query of it with a ValidationException
 * ("The table does not have the specified index"): say which index, and how to get it.
 */
function missingIndex(
  ctx: StoreContext,
  partition: HeadsPartition,
  error: unknown,
): PermanentError | undefined {
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  if (name !== "ValidationException" || !/specified index/i.test(String(message))) return undefined;
  return new PermanentError(
    `${partition.what}: table ${ctx.tableName} has no index ${partition.index} (it was made by an older ` +
      "runlog); deploy runlog's table construct again (cdk deploy adds the index)",
    { cause: error },
  );
}
