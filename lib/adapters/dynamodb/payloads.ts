import { promisify } from "node:util";
import { brotliCompress, brotliDecompress, constants } from "node:zlib";
import { CorruptEventError, errorMessage, InvalidInputError } from "../../core/errors.ts";
import { canonicalJson, decodeEvent, type RunEvent } from "../../core/events.ts";
import { MAX_EVENT_BYTES } from "../../ports/eventStore.ts";
import { type BlobRef, chunkCount, hashOf, joinChunks, linkBlob, readChunks } from "./blobs.ts";
import type { StoreContext } from "./context.ts";
import { type Item, isExpired, key, num, readNumber, readString, str } from "./items.ts";

/** Bodies smaller than this are stored as they are: compressing them saves too little to matter. */
export const COMPRESS_MIN_BYTES = 1024;
/** Compressed bodies are kept only when they save at least this fraction, so random data is never inflated. */
export const MIN_SAVING = 0.1;
/** Stored bodies up to this size stay in the event item; larger ones go to a shared, chunked blob. */
export const INLINE_MAX_BYTES = 64 * 1024;

/** How a stored body is encoded: `br` is Brotli (fast level), `identity` is the JSON's UTF-8 bytes. */
export type Encoding = "br" | "identity";

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/** The bytes to store for a body, compressed when that pays. */
export async function encodeBody(json: Buffer): Promise<{ data: Buffer; encoding: Encoding }> {
  if (json.length < COMPRESS_MIN_BYTES) return { data: json, encoding: "identity" };
  const packed = await compress(json, {
    params: {
      // Quality 1: most of the gain for JSON and text at a few ms per MB.
      [constants.BROTLI_PARAM_QUALITY]: 1,
      [constants.BROTLI_PARAM_SIZE_HINT]: json.length,
    },
  });
  return packed.length <= json.length * (1 - MIN_SAVING)
    ? { data: packed, encoding: "br" }
    : { data: json, encoding: "identity" };
}

function tooBig(runId: string, event: RunEvent, bytes: number): InvalidInputError {
  const fromUser = event.type === "run_started" || event.type === "resumed" || event.type === "user_message";
  return new InvalidInputError(
    `run ${runId}: the ${event.type} event at seq ${event.seq} is ${bytes} bytes as stored, over the ` +
      `${MAX_EVENT_BYTES} an event can hold${fromUser ? ": shorten the input" : ""}`,
  );
}

/**
 * The item for one event, ready for its conditional put. A body of at most
 * INLINE_MAX_BYTES (after compression) stays in the item; a larger one is
 * written first, as a content-addressed blob the item points to, so the put of
 * the item remains the single commit point: a crash before it leaves only an
 * unreferenced blob, and a loser of the seq race never touches the winner's.
 * `type` and `at` are copies for people browsing the table.
 */
export async function encodeEventItem(ctx: StoreContext, runId: string, event: RunEvent): Promise<Item> {
  const json = Buffer.from(canonicalJson(event), "utf8");
  if (json.length > MAX_EVENT_BYTES) throw tooBig(runId, event, json.length);
  const base: Item = { ...key(runId, event.seq), type: str(event.type), at: str(event.at) };
  const { data, encoding } = await encodeBody(json);
  if (data.length <= INLINE_MAX_BYTES) {
    // Uncompressed bodies stay text, as every earlier version stored them.
    return encoding === "identity"
      ? { ...base, body: str(json.toString("utf8")) }
      : { ...base, body: { B: data }, enc: str(encoding) };
  }
  const ref: BlobRef = { hash: hashOf(data), chunks: chunkCount(data.length), bytes: data.length };
  await linkBlob(ctx, runId, ref, undefined, data);
  return {
    ...base,
    blobHash: str(ref.hash),
    blobChunks: num(ref.chunks),
    blobBytes: num(ref.bytes),
    enc: str(encoding),
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

async function decodeBytes(runId: string, seq: number, data: Buffer, encoding: string): Promise<string> {
  if (encoding === "identity") return data.toString("utf8");
  if (encoding !== "br") throw new CorruptEventError(runId, seq, `unknown body encoding ${encoding}`);
  try {
    // The bound keeps a corrupt item from unpacking into more than an event may be.
    return (await decompress(data, { maxOutputLength: MAX_EVENT_BYTES + 1 })).toString("utf8");
  } catch (error) {
    throw new CorruptEventError(runId, seq, `the compressed body does not unpack (${errorMessage(error)})`);
  }
}

function parseEvent(runId: string, seq: number, body: string): RunEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (error) {
    throw new CorruptEventError(runId, seq, `body is not valid JSON (${errorMessage(error)})`);
  }
  const decoded = decodeEvent(raw);
  if (!decoded.ok) throw new CorruptEventError(runId, seq, decoded.problem);
  if (decoded.event.seq !== seq) {
    throw new CorruptEventError(runId, seq, `the body says seq ${decoded.event.seq}`);
  }
  return decoded.event;
}

async function decodeOne(runId: string, item: Item, chunks: Map<string, Buffer>): Promise<RunEvent> {
  const seq = readNumber(item, "seq") ?? Number.NaN;
  const encoding = readString(item, "enc") ?? "identity";
  const blob = blobOf(item);
  if (blob) {
    const data = joinChunks(blob, chunks);
    if (typeof data === "string") throw new CorruptEventError(runId, seq, data);
    return parseEvent(runId, seq, await decodeBytes(runId, seq, data, encoding));
  }
  const body = item.body;
  if (body && "S" in body && body.S !== undefined) return parseEvent(runId, seq, body.S);
  if (body && "B" in body && body.B !== undefined) {
    return parseEvent(runId, seq, await decodeBytes(runId, seq, Buffer.from(body.B), encoding));
  }
  throw new CorruptEventError(runId, seq, "the item has no body attribute");
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
