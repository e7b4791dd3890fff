import { QueryCommand } from "@aws-sdk/client-dynamodb";
import type { RunStatus } from "../../core/status.ts";
import type { RunHead } from "../../ports/eventStore.ts";
import { type ListPosition, newestFirst } from "../paging.ts";
import { attempt, type StoreContext } from "./context.ts";
import { decodeHead, type Item, isExpired, str } from "./items.ts";
import { STATUS_INDEX } from "./table.ts";

/**
 * At least `want` heads of one status listed after `after` (newest first), or all there are,
 * read by Query from the status index (partition: status, sort: updatedAt). The index keeps no
 * order among heads of equal updatedAt, so every head tied with the last one kept is read too:
 * the caller sorts by runId and cuts, and no tied head is skipped or listed twice across pages.
 */
export async function headsOfStatus(
  ctx: StoreContext,
  status: RunStatus,
  after: ListPosition | undefined,
  want: number,
): Promise<RunHead[]> {
  const heads: RunHead[] = [];
  let startKey: Item | undefined;
  do {
    const out = await attempt(ctx, `list ${status} runs`, () =>
      ctx.client.send(
        new QueryCommand({
          TableName: ctx.tableName,
          IndexName: STATUS_INDEX,
          KeyConditionExpression:
            after === undefined ? "#status = :status" : "#status = :status AND updatedAt <= :after",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: {
            ":status": str(status),
            ...(after === undefined ? {} : { ":after": str(after.updatedAt) }),
          },
          ScanIndexForward: false,
          Limit: want,
          ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
        }),
      ),
    );
    const now = ctx.now();
    for (const item of out.Items ?? []) {
      // Expired runs are gone to readers, even while DynamoDB has not deleted them yet.
      const head = isExpired(item, now) ? undefined : decodeHead(item);
      if (head === undefined || (after !== undefined && newestFirst(head, after) <= 0)) continue;
      const last = heads[want - 1];
      if (last !== undefined && head.updatedAt !== last.updatedAt) return heads;
      heads.push(head);
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey !== undefined);
  return heads;
}
