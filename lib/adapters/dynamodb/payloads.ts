import { CorruptEventError } from "../../core/errors.ts";
import type { RunEvent } from "../../core/events.ts";
import { decodeEventBody, encodeEventBody } from "../encoding/eventBody.ts";
import { type BlobRef, chunkCount, hashOf, joinChunks, linkBlob, readChunks } from "./blobs.ts";
import type { StoreContext } from "./context.ts";
import { type Item, isExpired, key, num, readNumber, readString, str } from "./items.ts";

/** Stored bodies up to this size stay in the event item; larger ones go to a shared, chunked blob. */
export const INLINE_MAX_BYTES = 64 * 1024;

/**
 * The item for one event, ready for its conditional put. A body of at most
 * INLINE_MAX_BYTES (after compression) stays in the item; a larger one is
 * written first, as a content-addressed blob the item points to, so the put of
 * the item remains the single commit point: a crash before it leaves only an
 * unreferenced blob, and a loser of the seq race never touches the winner's.
 * `type` and `at` are copies for people browsing the table.
 */
export async function encodeEventItem(ctx: StoreContext, runId: string, event: RunEvent): Promise<Item> {
  const body = await encodeEventBody(runId, event);
  const base: Item = { ...key(runId, event.seq), type: str(event.type), at: str(event.at) };
  if (body.bytes <= INLINE_MAX_BYTES) {
    // Uncompressed bodies stay text, as every earlier version stored them.
    return body.encoding === "identity"
      ? { ...base, body: str(body.text) }
      : { ...base, body: { B: body.data }, enc: str(body.encoding) };
  }
  const data = body.encoding === "identity" ? Buffer.from(body.text, "utf8") : body.data;
  const ref: BlobRef = { hash: hashOf(data), chunks: chunkCount(data.length), bytes: data.length };
  await linkBlob(ctx, runId, ref, undefined, data);
  return {
    ...base,
    blobHash: str(ref.hash),
    blobChunks: num(ref.chunks),
    blobBytes: num(ref.bytes),
    enc: str(body.encoding),
  };
}

/** The blob an event item points to, if it has one. */
export function blobOf(item: Item): BlobRef | undefined {
  const hash = readString(item, "blobHash");
  const chunks = readNumber(item, "blobChunks");
  const bytes = readNumber(item, "blobBytes");
  return hash !== undefined && chunks !== undefined && bytes !== undefined
    ? { hash, chunks, bytes }
    : undefined;
}

/** An item's body stored in the item itself (text or bytes), undefined when it has none (a blob's, or a broken item). */
export function inlineBody(item: Item): string | Uint8Array | undefined {
  const body = item.body;
  if (body && "S" in body && body.S !== undefined) return body.S;
  if (body && "B" in body && body.B !== undefined) return body.B;
  return undefined;
}

async function decodeOne(runId: string, item: Item, chunks: Map<string, Buffer>): Promise<RunEvent> {
  const seq = readNumber(item, "seq") ?? Number.NaN;
  const encoding = readString(item, "enc") ?? "identity";
  const blob = blobOf(item);
  if (blob) {
    const data = joinChunks(blob, chunks);
    if (typeof data === "string") throw new CorruptEventError(runId, seq, data);
    return decodeEventBody(runId, seq, data, encoding);
  }
  const body = inlineBody(item);
  if (body === undefined) throw new CorruptEventError(runId, seq, "the item has no body attribute");
  return decodeEventBody(runId, seq, body, encoding);
}

/**
 * Stored event items (of one run, in the order given) to events: the one
 * decoding every read path shares. Items whose TTL has passed are left out,
 * as if already deleted; chunks of big payloads are fetched in one batch and
 * checked against their hash. CorruptEventError names the seq of a bad item.
 */
export async function decodeEventItems(
  ctx: StoreContext,
  runId: string,
  items: readonly Item[],
): Promise<RunEvent[]> {
  const now = ctx.now();
  const live = items.filter((item) => !isExpired(item, now));
  const refs = live.map(blobOf).filter((ref): ref is BlobRef => ref !== undefined);
  const chunks = refs.length === 0 ? new Map<string, Buffer>() : await readChunks(ctx, refs);
  const events: RunEvent[] = [];
  for (const item of live) events.push(await decodeOne(runId, item, chunks));
  return events;
}
