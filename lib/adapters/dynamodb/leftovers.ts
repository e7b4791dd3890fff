import { DeleteItemCommand, QueryCommand } from "@aws-sdk/client-dynamodb";
import { forEachConcurrently } from "../../core/concurrency.ts";
import { attempt, attemptConditional, type StoreContext } from "./context.ts";
import { HEAD_SEQ, type Item, isExpired, key, num, readNumber, str, TTL_ATTRIBUTE } from "./items.ts";
import { queryPages } from "./queryPages.ts";

/** Deletes in flight at once. */
const CONCURRENCY = 16;
/** Items read by the first Query of the search. */
const FIRST_PAGE = 8;

/**
 * The items of a run removed by retention that DynamoDB has not deleted yet (TTL deletion can
 * take days): every item of the partition whose TTL has passed, as key and TTL. Reads already
 * treat them as gone; createRun must too, so a run created again under the same id never reads
 * one of them or collides with one on append. A live head ends the search at the first item:
 * a run is only given its head once its leftovers are gone (see DynamoEventStore.createRun).
 */
export async function expiredLeftovers(ctx: StoreContext, runId: string): Promise<number[]> {
  const now = ctx.now();
  const what = `look for expired items of run ${runId}`;
  const input = {
    TableName: ctx.tableName,
    KeyConditionExpression: "runId = :runId",
    ProjectionExpression: "#seq, #ttl",
    ExpressionAttributeNames: { "#seq": "seq", "#ttl": TTL_ATTRIBUTE },
    ExpressionAttributeValues: { ":runId": str(runId) },
    ConsistentRead: true,
  };
  const seqs: number[] = [];
  /** Take a page's expired seqs; false when the run has a live head (then it has no leftovers). */
  const take = (items: Item[]): boolean => {
    for (const item of items) {
      const seq = readNumber(item, "seq");
      if (seq === undefined) continue;
      const expired = isExpired(item, now);
      if (seq === HEAD_SEQ && !expired) return false;
      if (expired) seqs.push(seq);
    }
    return true;
  };
  // A first page of a few items decides for a new id (none) and a live run (its head), without
  // reading a long live run; only leftovers are read on, by the SDK's paginator, in full pages
  // (its Limit would hold for every page, so the small first one is asked for on its own).
  const first = await attempt(ctx, what, () =>
    ctx.client.send(new QueryCommand({ ...input, Limit: FIRST_PAGE })),
  );
  if (!take(first.Items ?? [])) return [];
  if (!first.LastEvaluatedKey) return seqs;
  for await (const page of queryPages(ctx, what, input, first.LastEvaluatedKey)) {
    if (!take(page.Items ?? [])) return [];
  }
  return seqs;
}

/**
 * Delete these items of a run, each only while its TTL has still passed: an item revived since
 * (`expire(runId, null)`) or replaced by a new run's (written without a TTL) stays, so this never
 * removes anything a reader could see. The run's share of big payloads is left to the blobs' own
 * TTL: a manifest's reference for this run already carries the passed TTL, and a new run that
 * stores the same bytes replaces it (see linkBlob).
 */
export async function deleteLeftovers(ctx: StoreContext, runId: string, seqs: readonly number[]) {
  const now = Math.floor(ctx.now().getTime() / 1000);
  await forEachConcurrently(seqs, CONCURRENCY, (seq) =>
    // False (the condition failed) is the case above: the item is live again, and stays.
    attemptConditional(ctx, `delete expired seq ${seq} of run ${runId}`, () =>
      ctx.client.send(
        new DeleteItemCommand({
          TableName: ctx.tableName,
          Key: key(runId, seq),
          ConditionExpression: "#ttl <= :now",
          ExpressionAttributeNames: { "#ttl": TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ":now": num(now) },
        }),
      ),
    ),
  );
}
