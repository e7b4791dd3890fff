import { QueryCommand } from "@aws-sdk/client-dynamodb";
import { CorruptEventError } from "../../core/errors.ts";
import type { EventPage, EventSummary, PageEntry, PageRequest } from "../../ports/eventStore.ts";
import { PREVIEW_SOURCE_BYTES, previewOfBody } from "../encoding/preview.ts";
import { checkPageRequest, pageCost, planPage, type StoredSize } from "../eventPage.ts";
import { readChunks } from "./blobs.ts";
import { attempt, type StoreContext } from "./context.ts";
import { type Item, isExpired, num, readNumber, readString, str } from "./items.ts";
import { blobOf, decodeEventItems } from "./payloads.ts";

/** The size of an item's body as stored: its blob's bytes, or its inline body's. */
function storedBytes(item: Item): number {
  const blob = blobOf(item);
  if (blob) return blob.bytes;
  const body = item.body;
  if (body && "S" in body && body.S !== undefined) return Buffer.byteLength(body.S, "utf8");
  if (body && "B" in body && body.B !== undefined) return body.B.length;
  return 0; // no body: decoding it says it is corrupt
}

const sizeOf = (item: Item): StoredSize => ({
  seq: readNumber(item, "seq") ?? 0,
  storedBytes: storedBytes(item),
});

/**
 * The live event items after `afterSeq`, queried until there are limit + 1 of them, their stored
 * sizes pass maxBytes, or the log ends. Items carry at most INLINE_MAX_BYTES of body (bigger
 * ones only point to their blob), and DynamoDB reads at most 1 MB per Query: the reads past
 * what the page holds stay within one Query's worth.
 */
async function queryItems(ctx: StoreContext, runId: string, request: Required<PageRequest>): Promise<Item[]> {
  const { afterSeq, limit, maxBytes } = request;
  const items: Item[] = [];
  let bytes = 0;
  let startKey: Item | undefined;
  do {
    const page = await attempt(ctx, `read a page of run ${runId} after seq ${afterSeq}`, () =>
      ctx.client.send(
        new QueryCommand({
          TableName: ctx.tableName,
          KeyConditionExpression: "runId = :runId AND #seq > :after",
          ExpressionAttributeNames: { "#seq": "seq" },
          ExpressionAttributeValues: { ":runId": str(runId), ":after": num(afterSeq) },
          ConsistentRead: true,
          Limit: limit + 1 - items.length,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      ),
    );
    const now = ctx.now();
    for (const item of page.Items ?? []) {
      if (isExpired(item, now)) continue;
      items.push(item);
      bytes += pageCost(storedBytes(item), maxBytes);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey && items.length <= limit && bytes <= maxBytes);
  return items;
}

/** A bounded page of a run's log (see EventStore.readPage); a summarized event's blob is read only as far as its first chunk. */
export async function readPage(ctx: StoreContext, runId: string, request: PageRequest): Promise<EventPage> {
  const checked = checkPageRequest(runId, request);
  const items = await queryItems(ctx, runId, checked);
  const plan = planPage(items.map(sizeOf), checked);
  const wholeItems = items.slice(0, plan.entries.length).filter((_, i) => plan.entries[i]!.whole);
  // Chunks of the events held whole are fetched in one batch, as read() does.
  const events = await decodeEventItems(ctx, runId, wholeItems);
  // Fewer when the run's TTL passed since the query: the run is gone, as it is for read().
  if (events.length !== wholeItems.length) return { entries: [], more: false };
  const entries: PageEntry[] = [];
  let next = 0;
  for (const [i, entry] of plan.entries.entries()) {
    entries.push(
      entry.whole ? { event: events[next++]! } : { summary: await summarize(ctx, runId, items[i]!) },
    );
  }
  return { entries, more: plan.more };
}

async function summarize(ctx: StoreContext, runId: string, item: Item): Promise<EventSummary> {
  const seq = readNumber(item, "seq") ?? Number.NaN;
  const encoding = readString(item, "enc") ?? "identity";
  // `type` is stored beside every body; without it the item was not written by this store.
  if (readString(item, "type") === undefined)
    throw new CorruptEventError(runId, seq, "the item has no type attribute");
  return {
    seq,
    type: readString(item, "type") as EventSummary["type"],
    at: readString(item, "at") ?? "",
    storedBytes: storedBytes(item),
    preview: await previewOfBody(runId, seq, await storedStart(ctx, runId, seq, item), encoding),
  };
}

/** The first PREVIEW_SOURCE_BYTES of an item's stored body: its inline body, or its blob's first chunk. */
async function storedStart(
  ctx: StoreContext,
  runId: string,
  seq: number,
  item: Item,
): Promise<string | Buffer> {
  const blob = blobOf(item);
  if (blob) {
    const first = (await readChunks(ctx, [{ ...blob, chunks: 1 }])).get(`${blob.hash}/1`);
    if (!first)
      throw new CorruptEventError(runId, seq, `chunk 1 of ${blob.chunks} of blob ${blob.hash} is missing`);
    return first.subarray(0, PREVIEW_SOURCE_BYTES);
  }
  const body = item.body;
  if (body && "S" in body && body.S !== undefined) return body.S.slice(0, PREVIEW_SOURCE_BYTES);
  if (body && "B" in body && body.B !== undefined)
    return Buffer.from(body.B).subarray(0, PREVIEW_SOURCE_BYTES);
  throw new CorruptEventError(runId, seq, "the item has no body attribute");
}
