import { QueryCommand } from "@aws-sdk/client-dynamodb";
import { CorruptEventError } from "../../core/errors.ts";
import type { EventPage, EventSummary, PageEntry, PageRequest } from "../../ports/eventStore.ts";
import { PREVIEW_SOURCE_BYTES, previewOfBody } from "../encoding/preview.ts";
import { checkPageRequest, pageCost, planPage, type StoredSize } from "../eventPage.ts";
import { readChunks } from "./blobs.ts";
import { attempt, type StoreContext } from "./context.ts";
import { type Item, isExpired, num, readNumber, readString, str } from "./items.ts";
import { blobOf, decodeEventItems, inlineBody } from "./payloads.ts";

/** The size of an item's body as stored: its blob's bytes, or its inline body's. */
function storedBytes(item: Item): number {
  const blob = blobOf(item);
  if (blob) return blob.bytes;
  const body = inlineBody(item);
  if (body === undefined) return 0; // no body: decoding it says it is corrupt
  return typeof body === "string" ? Buffer.byteLength(body, "utf8") : body.length;
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
          // paged by hand: each page asks only for what the page still lacks (Limit) and the loop stops at maxBytes; paginateQuery keeps one Limit for every page
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
  const listed = items.slice(0, plan.entries.length);
  const wholeItems = listed.filter((_, i) => plan.entries[i]!.whole);
  const firstChunks = listed
    .filter((_, i) => !plan.entries[i]!.whole)
    .flatMap((item) => {
      const blob = blobOf(item);
      return blob ? [{ ...blob, chunks: 1 }] : [];
    });
  // The chunks of the events held whole (as read() fetches them) and the first chunk of each
  // summarized event's blob, each in one batch, at once.
  const [events, starts] = await Promise.all([
    decodeEventItems(ctx, runId, wholeItems),
    readChunks(ctx, firstChunks),
  ]);
  // Fewer when the run's TTL passed since the query: the run is gone, as it is for read().
  if (events.length !== wholeItems.length) return { entries: [], more: false };
  const entries: PageEntry[] = [];
  let next = 0;
  for (const [i, entry] of plan.entries.entries()) {
    entries.push(
      entry.whole ? { event: events[next++]! } : { summary: await summarize(runId, items[i]!, starts) },
    );
  }
  return { entries, more: plan.more };
}

async function summarize(runId: string, item: Item, starts: Map<string, Buffer>): Promise<EventSummary> {
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
    preview: await previewOfBody(runId, seq, storedStart(runId, seq, item, starts), encoding),
  };
}

/** The first PREVIEW_SOURCE_BYTES of an item's stored body: its inline body, or its blob's first chunk (in `starts`). */
function storedStart(runId: string, seq: number, item: Item, starts: Map<string, Buffer>): string | Buffer {
  const blob = blobOf(item);
  if (blob) {
    const first = starts.get(`${blob.hash}/1`);
    if (!first)
      throw new CorruptEventError(runId, seq, `chunk 1 of ${blob.chunks} of blob ${blob.hash} is missing`);
    return first.subarray(0, PREVIEW_SOURCE_BYTES);
  }
  const body = inlineBody(item);
  if (body === undefined) throw new CorruptEventError(runId, seq, "the item has no body attribute");
  return typeof body === "string"
    ? body.slice(0, PREVIEW_SOURCE_BYTES)
    : Buffer.from(body).subarray(0, PREVIEW_SOURCE_BYTES);
}
