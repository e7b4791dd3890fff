import { createHash, randomUUID } from "node:crypto";
import {
  BatchGetItemCommand,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { forEachConcurrently } from "../../core/concurrency.ts";
import { RetryableError } from "../../core/errors.ts";
import { attempt, attemptConditional, type StoreContext } from "./context.ts";
import { type Item, num, readNumber, str, TTL_ATTRIBUTE } from "./items.ts";

/**
 * Payloads too big for one item live in their own partition, `blob#<sha256>`,
 * named by the hash of the stored bytes: item 0 is the manifest (who refers to
 * the blob, and until when), items 1..n the chunks. Run ids cannot contain `#`,
 * so no run's Query ever reaches a blob; blobs carry no `status`, so the
 * status index never does either. Two runs (a fork and its parent) holding the
 * same bytes share one blob.
 */
export const BLOB_PREFIX = "blob#";

/** Bytes per chunk item: with its key and attributes an item stays far below DynamoDB's 400 KB. */
export const CHUNK_BYTES = 300 * 1024;

/** A manifest attribute per referring run: its TTL in epoch seconds, 0 while the run is kept. */
const REF_PREFIX = "r#";
const KEPT = 0;
/** Chunk puts (300 KB each) in flight at once. */
const PUT_CONCURRENCY = 4;
/** BatchGetItem takes at most 100 keys. */
const BATCH_GET_KEYS = 100;
/** BatchGetItem calls for one batch, while DynamoDB leaves keys unprocessed (throttling), before giving up. */
const BATCH_GET_ROUNDS = 8;

/** What an event item says about its blob. */
export interface BlobRef {
  hash: string;
  chunks: number;
  bytes: number;
}

/** A TTL in epoch seconds, or undefined for "keep". */
export type Ttl = number | undefined;

/** The name of stored bytes: their SHA-256, in hex. */
export const hashOf = (data: Buffer) => createHash("sha256").update(data).digest("hex");

export const blobPartition = (hash: string) => `${BLOB_PREFIX}${hash}`;
const blobKey = (hash: string, seq: number): Item => ({ runId: str(blobPartition(hash)), seq: num(seq) });
const chunkSeqs = (ref: BlobRef) => Array.from({ length: ref.chunks }, (_, i) => i + 1);

export const chunkCount = (bytes: number) => Math.max(1, Math.ceil(bytes / CHUNK_BYTES));

/** The blob's TTL: kept while any referrer is kept, else the latest referrer's. */
function blobTtl(manifest: Item): Ttl {
  let latest = 0;
  for (const [name, value] of Object.entries(manifest)) {
    if (!name.startsWith(REF_PREFIX) || !("N" in value)) continue;
    const ttl = Number(value.N);
    if (!(ttl > 0)) return undefined;
    latest = Math.max(latest, ttl);
  }
  return latest > 0 ? latest : undefined;
}

/**
 * Set a blob item's TTL as manifest version `version` computed it. Ordered by
 * version, so a slower writer holding an older view of the referrers can never
 * undo a newer one. False when the item is missing or already newer.
 */
function setBlobTtl(ctx: StoreContext, hash: string, seq: number, ttl: Ttl, version: number) {
  return attemptConditional(ctx, `set the TTL of blob ${hash} item ${seq}`, () =>
    ctx.client.send(
      new UpdateItemCommand({
        TableName: ctx.tableName,
        Key: blobKey(hash, seq),
        UpdateExpression: ttl === undefined ? "SET #tv = :v REMOVE #ttl" : "SET #tv = :v, #ttl = :ttl",
        ConditionExpression: "attribute_exists(runId) AND (attribute_not_exists(#tv) OR #tv <= :v)",
        ExpressionAttributeNames: { "#tv": "ttlVersion", "#ttl": TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ":v": num(version), ...(ttl === undefined ? {} : { ":ttl": num(ttl) }) },
      }),
    ),
  );
}

async function exists(ctx: StoreContext, hash: string, seq: number): Promise<boolean> {
  const out = await attempt(ctx, `look up blob ${hash} item ${seq}`, () =>
    ctx.client.send(
      new GetItemCommand({
        TableName: ctx.tableName,
        Key: blobKey(hash, seq),
        ProjectionExpression: "#seq",
        ExpressionAttributeNames: { "#seq": "seq" },
        ConsistentRead: true,
      }),
    ),
  );
  return out.Item !== undefined;
}

/** Create a chunk if it is missing: never overwrites (same hash, same bytes). False when it was there. */
function putChunk(ctx: StoreContext, hash: string, seq: number, data: Buffer, ttl: Ttl, version: number) {
  return attemptConditional(ctx, `write chunk ${seq} of blob ${hash}`, () =>
    ctx.client.send(
      new PutItemCommand({
        TableName: ctx.tableName,
        Item: {
          ...blobKey(hash, seq),
          data: { B: data.subarray((seq - 1) * CHUNK_BYTES, seq * CHUNK_BYTES) },
          ttlVersion: num(version),
          ...(ttl === undefined ? {} : { [TTL_ATTRIBUTE]: num(ttl) }),
        },
        ConditionExpression: "attribute_not_exists(runId)",
      }),
    ),
  );
}

/**
 * Record that `runId` refers to a blob until `ttl` (undefined: keep), and bring
 * the blob's items' TTL to the latest of its referrers'. With `data` (a write),
 * missing chunks are written first; chunks already stored are never sent again,
 * so a fork refers to its parent's payloads instead of copying them. Idempotent.
 */
export async function linkBlob(
  ctx: StoreContext,
  runId: string,
  ref: BlobRef,
  ttl: Ttl,
  data?: Buffer,
): Promise<void> {
  const token = randomUUID();
  const finite = ttl !== undefined;
  const out = await attempt(ctx, `link blob ${ref.hash} to run ${runId}`, () =>
    ctx.client.send(
      new UpdateItemCommand({
        TableName: ctx.tableName,
        Key: blobKey(ref.hash, 0),
        UpdateExpression:
          "SET #ref = :ttl, #chunks = :chunks, #bytes = :bytes, #created = if_not_exists(#created, :token)" +
          `${finite ? ", #finite = :true" : ""} ADD #rv :one`,
        ExpressionAttributeNames: {
          "#ref": `${REF_PREFIX}${runId}`,
          "#chunks": "chunks",
          "#bytes": "bytes",
          "#created": "createdBy",
          "#rv": "refVersion",
          ...(finite ? { "#finite": "everFinite" } : {}),
        },
        ExpressionAttributeValues: {
          ":ttl": num(ttl ?? KEPT),
          ":chunks": num(ref.chunks),
          ":bytes": num(ref.bytes),
          ":token": str(token),
          ":one": num(1),
          ...(finite ? { ":true": { BOOL: true } } : {}),
        },
        ReturnValues: "ALL_NEW",
      }),
    ),
  );
  const manifest = out.Attributes ?? {};
  const version = readNumber(manifest, "refVersion") ?? 1;
  const blob = blobTtl(manifest);
  // A manifest we created may replace one TTL deleted before its chunks: their TTL is unknown.
  const created = manifest.createdBy?.S === token;
  // Until some referrer set a TTL, no item of this blob has one: nothing to change.
  const ttlWork = created || manifest.everFinite?.BOOL === true;
  const complete = manifest.complete?.BOOL === true;

  if (data && (created || !complete)) {
    await forEachConcurrently(chunkSeqs(ref), PUT_CONCURRENCY, async (seq) => {
      if (!(await putChunk(ctx, ref.hash, seq, data, blob, version)) && ttlWork) {
        await setBlobTtl(ctx, ref.hash, seq, blob, version);
      }
    });
    await attempt(ctx, `mark blob ${ref.hash} complete`, () =>
      ctx.client.send(
        new UpdateItemCommand({
          TableName: ctx.tableName,
          Key: blobKey(ref.hash, 0),
          UpdateExpression: "SET #complete = :true",
          ExpressionAttributeNames: { "#complete": "complete" },
          ExpressionAttributeValues: { ":true": { BOOL: true } },
        }),
      ),
    );
  } else if (ttlWork) {
    await forEachConcurrently(chunkSeqs(ref), PUT_CONCURRENCY, async (seq) => {
      if (await setBlobTtl(ctx, ref.hash, seq, blob, version)) return;
      // Deleted by TTL in the meantime (a referrer's TTL passed): write it again when we can.
      if (data && !(await exists(ctx, ref.hash, seq)))
        await putChunk(ctx, ref.hash, seq, data, blob, version);
    });
  }
  if (ttlWork) await setBlobTtl(ctx, ref.hash, 0, blob, version);
}

/** The chunk items of these blobs by `hash/seq`, read strongly consistently (they are written before their event). */
export async function readChunks(ctx: StoreContext, refs: readonly BlobRef[]): Promise<Map<string, Buffer>> {
  const keys = refs.flatMap((ref) => chunkSeqs(ref).map((seq) => blobKey(ref.hash, seq)));
  const found = new Map<string, Buffer>();
  for (let i = 0; i < keys.length; i += BATCH_GET_KEYS) {
    let pending: Item[] | undefined = keys.slice(i, i + BATCH_GET_KEYS);
    for (let round = 0; pending && pending.length > 0; round++) {
      const request: Item[] = pending;
      const out = await attempt(ctx, `read ${request.length} payload chunks`, () =>
        ctx.client.send(
          new BatchGetItemCommand({
            RequestItems: { [ctx.tableName]: { Keys: request, ConsistentRead: true } },
          }),
        ),
      );
      for (const item of out.Responses?.[ctx.tableName] ?? []) {
        const partition = item.runId?.S ?? "";
        const data = item.data && "B" in item.data ? item.data.B : undefined;
        if (data) found.set(`${partition.slice(BLOB_PREFIX.length)}/${item.seq?.N}`, Buffer.from(data));
      }
      pending = out.UnprocessedKeys?.[ctx.tableName]?.Keys;
      if (!pending || pending.length === 0) break;
      if (round + 1 >= BATCH_GET_ROUNDS) {
        // Never a short read: a payload with a chunk missing must fail the read, to be tried again.
        throw new RetryableError(
          `read payload chunks: DynamoDB left ${pending.length} of ${request.length} unread after ` +
            `${BATCH_GET_ROUNDS} tries (first: ${pending[0]?.runId?.S} item ${pending[0]?.seq?.N})`,
        );
      }
      await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** round)));
    }
  }
  return found;
}

/** The stored bytes of a blob from its chunks, or what is wrong with them. */
export function joinChunks(ref: BlobRef, chunks: Map<string, Buffer>): Buffer | string {
  const parts: Buffer[] = [];
  for (const seq of chunkSeqs(ref)) {
    const part = chunks.get(`${ref.hash}/${seq}`);
    if (!part) return `chunk ${seq} of ${ref.chunks} of blob ${ref.hash} is missing`;
    parts.push(part);
  }
  const data = Buffer.concat(parts);
  if (data.length !== ref.bytes) return `blob ${ref.hash} holds ${data.length} bytes, expected ${ref.bytes}`;
  if (hashOf(data) !== ref.hash) return `blob ${ref.hash} does not match its hash`;
  return data;
}
