import { GetItemCommand, UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import { forEachConcurrently } from "../../core/concurrency.ts";
import { InvalidInputError } from "../../core/errors.ts";
import { type BlobRef, linkBlob, type Ttl } from "./blobs.ts";
import { attempt, attemptConditional, type StoreContext } from "./context.ts";
import { HEAD_SEQ, key, num, readNumber, str, TTL_ATTRIBUTE } from "./items.ts";
import { blobOf } from "./payloads.ts";
import { queryPages } from "./queryPages.ts";

/** Item updates in flight at once. */
const CONCURRENCY = 16;

async function currentTtl(ctx: StoreContext, runId: string): Promise<{ head: boolean; ttl: Ttl }> {
  const out = await attempt(ctx, `read the TTL of run ${runId}`, () =>
    ctx.client.send(
      new GetItemCommand({
        TableName: ctx.tableName,
        Key: key(runId, HEAD_SEQ),
        ProjectionExpression: "#seq, #ttl",
        ExpressionAttributeNames: { "#seq": "seq", "#ttl": TTL_ATTRIBUTE },
        ConsistentRead: true,
      }),
    ),
  );
  return { head: out.Item !== undefined, ttl: out.Item ? readNumber(out.Item, TTL_ATTRIBUTE) : undefined };
}

/** The seqs of a run's events and the blobs they point to, a page at a time. */
async function eventsOf(ctx: StoreContext, runId: string): Promise<{ seqs: number[]; blobs: BlobRef[] }> {
  const seqs: number[] = [];
  const blobs = new Map<string, BlobRef>();
  const pages = queryPages(ctx, `list the items of run ${runId}`, {
    TableName: ctx.tableName,
    KeyConditionExpression: "runId = :runId AND #seq > :head",
    ProjectionExpression: "#seq, blobHash, blobChunks, blobBytes",
    ExpressionAttributeNames: { "#seq": "seq" },
    ExpressionAttributeValues: { ":runId": str(runId), ":head": num(HEAD_SEQ) },
    ConsistentRead: true,
  });
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const seq = readNumber(item, "seq");
      if (seq !== undefined) seqs.push(seq);
      const blob = blobOf(item);
      if (blob) blobs.set(blob.hash, blob);
    }
  }
  return { seqs, blobs: [...blobs.values()] };
}

/** Set (or remove) one item's TTL; an item that is gone stays gone (never created by this). */
function setTtl(ctx: StoreContext, runId: string, seq: number, ttl: Ttl) {
  return attemptConditional(ctx, `set the TTL of seq ${seq} of run ${runId}`, () =>
    ctx.client.send(
      new UpdateItemCommand({
        TableName: ctx.tableName,
        Key: key(runId, seq),
        UpdateExpression: ttl === undefined ? "REMOVE #ttl" : "SET #ttl = :ttl",
        ConditionExpression: "attribute_exists(runId)",
        ExpressionAttributeNames: { "#ttl": TTL_ATTRIBUTE },
        ...(ttl === undefined ? {} : { ExpressionAttributeValues: { ":ttl": num(ttl) } }),
      }),
    ),
  );
}

/**
 * Give every item of a run the TTL `at` (null: remove it), and record the same
 * for the run on each blob its events point to (a blob lives as long as its
 * longest-lived referrer). Idempotent and safe to repeat after a crash: the
 * head's TTL is never later than any other item's, so a run whose head is
 * still visible is visible whole. That is why a TTL moving earlier is set on
 * the head first, and one moving later (or removed) on the head last.
 */
export async function expireRun(ctx: StoreContext, runId: string, at: Date | null): Promise<void> {
  if (at !== null && !Number.isFinite(at.getTime())) {
    throw new InvalidInputError(`expire run ${runId}: expected a valid date or null`, { runId });
  }
  const ttl: Ttl = at === null ? undefined : Math.ceil(at.getTime() / 1000);
  const current = await currentTtl(ctx, runId);
  // Nothing of the run has a TTL when its head has none (see above).
  if (ttl === undefined && current.head && current.ttl === undefined) return;
  const later = ttl === undefined || (current.ttl !== undefined && ttl >= current.ttl);
  const { seqs, blobs } = await eventsOf(ctx, runId);
  const head = () => (current.head ? setTtl(ctx, runId, HEAD_SEQ, ttl) : Promise.resolve());
  const events = () => forEachConcurrently(seqs, CONCURRENCY, (seq) => setTtl(ctx, runId, seq, ttl));
  const shared = () => forEachConcurrently(blobs, CONCURRENCY, (blob) => linkBlob(ctx, runId, blob, ttl));
  if (later) {
    await shared();
    await events();
    await head();
  } else {
    await head();
    await events();
    await shared();
  }
}
