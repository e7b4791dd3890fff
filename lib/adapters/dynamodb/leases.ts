import { randomUUID } from "node:crypto";
import { UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import { LeaseHeldError, NotFoundError } from "../../core/errors.ts";
import type { AutoResumes, Lease, Resting } from "../../ports/eventStore.ts";
import { attemptConditional, type StoreContext } from "./context.ts";
import { isConditionalFailure, toRunlogError, wasRetried } from "./errors.ts";
import { agentUpdate, getHead, getItem } from "./heads.ts";
import { HEAD_SEQ, type Item, key, num, readString, str } from "./items.ts";
import { statusShardOf } from "./shards.ts";

const describeLease = (lease: Lease | undefined) =>
  lease ? `held by ${lease.owner} until ${new Date(lease.until).toISOString()}` : "not held";

/** The part of a claim's update that replaces the head's AutoResumes record (none when not given). */
function autoResumesUpdate(autoResumes: AutoResumes | undefined): {
  set: string;
  remove: string;
  values: Item;
} {
  if (autoResumes === undefined) return { set: "", remove: "", values: {} };
  const values: Item = { ":autoResumes": num(autoResumes.count) };
  if (autoResumes.lastAt === undefined) {
    return { set: ", autoResumes = :autoResumes", remove: " REMOVE autoResumedAt", values };
  }
  values[":autoResumedAt"] = num(autoResumes.lastAt);
  return { set: ", autoResumes = :autoResumes, autoResumedAt = :autoResumedAt", remove: "", values };
}

async function casClaim(
  ctx: StoreContext,
  runId: string,
  lease: Lease,
  expect: number,
  autoResumes: AutoResumes | undefined,
): Promise<boolean> {
  // A head written before leases existed has no version: it counts as version 0.
  const versionMatches =
    expect === 0
      ? "(attribute_not_exists(leaseVersion) OR leaseVersion = :expect)"
      : "leaseVersion = :expect";
  const record = autoResumesUpdate(autoResumes);
  return attemptConditional(ctx, `claim the lease of run ${runId} for ${lease.owner}`, () =>
    ctx.client.send(
      new UpdateItemCommand({
        TableName: ctx.tableName,
        Key: key(runId, HEAD_SEQ),
        UpdateExpression:
          "SET leaseOwner = :owner, leaseUntil = :until, #status = :running, statusShard = :shard, " +
          "leaseVersion = :next, " +
          `updatedAt = :now${record.set}${record.remove}`,
        ConditionExpression: `attribute_exists(runId) AND ${versionMatches}`,
        ExpressionAttributeNames: { "#status": "status" },
        ExpressionAttributeValues: {
          ":owner": str(lease.owner),
          ":until": num(lease.until),
          ":running": str("running"),
          ":shard": str(statusShardOf("running", runId, ctx.statusShards)),
          ":expect": num(expect),
          ":next": num(expect + 1),
          ":now": str(ctx.now().toISOString()),
          ...record.values,
        },
      }),
    ),
  );
}

/** Compare-and-set on leaseVersion: of several claimers that read the same version, exactly one wins. */
export async function claimLease(
  ctx: StoreContext,
  runId: string,
  lease: Lease,
  expect: number,
  autoResumes?: AutoResumes,
) {
  if (await casClaim(ctx, runId, lease, expect, autoResumes)) return;
  // Learn why, repairing a missing head on the way; a head rebuilt at the expected version may be claimed.
  const stored = await getHead(ctx, runId);
  if (!stored) throw new NotFoundError(`claim the lease of run ${runId}: the run does not exist`, { runId });
  // An SDK retry of a claim whose answer was lost finds the lease already ours (owners are unique).
  if (stored.lease?.owner === lease.owner && stored.lease.until === lease.until) return;
  let current = stored;
  if (stored.leaseVersion === expect) {
    if (await casClaim(ctx, runId, lease, expect, autoResumes)) return;
    current = (await getHead(ctx, runId)) ?? stored;
  }
  throw new LeaseHeldError(
    `run ${runId}: lease not claimed by ${lease.owner}: expected lease version ${expect} but it is ` +
      `${current.leaseVersion} (${describeLease(current.lease)}); another executor claimed it first`,
    { runId },
  );
}

/** Extend the lease only while this owner still holds it (a repeated attempt meets its own write and holds too). */
export async function renewLease(ctx: StoreContext, runId: string, lease: Lease): Promise<boolean> {
  return attemptConditional(ctx, `renew the lease of run ${runId} for ${lease.owner}`, () =>
    ctx.client.send(
      new UpdateItemCommand({
        TableName: ctx.tableName,
        Key: key(runId, HEAD_SEQ),
        UpdateExpression: "SET leaseUntil = :until, updatedAt = :now",
        ConditionExpression: "leaseOwner = :owner",
        ExpressionAttributeValues: {
          ":owner": str(lease.owner),
          ":until": num(lease.until),
          ":now": str(ctx.now().toISOString()),
        },
      }),
    ),
  );
}

/**
 * Drop the lease and record the resting status (and last seq and agent in charge, when given). True exactly when this
 * call released it; false, with nothing written, when the lease was not this owner's. Each release
 * leaves a random token on the head: when the SDK sent the update twice and the first attempt was
 * applied, the second fails its condition on our own write, and the token (read back) tells that
 * apart from a lease that was never ours. A later release overwrites it, claims do not.
 */
export async function releaseLease(
  ctx: StoreContext,
  runId: string,
  owner: string,
  { status, lastSeq, agent }: Resting,
): Promise<boolean> {
  const what = `release the lease of run ${runId} held by ${owner}`;
  const setAgent = agentUpdate(agent);
  const token = randomUUID();
  const withSeq = lastSeq !== undefined;
  try {
    await ctx.client.send(
      new UpdateItemCommand({
        TableName: ctx.tableName,
        Key: key(runId, HEAD_SEQ),
        UpdateExpression:
          "REMOVE leaseOwner, leaseUntil SET #status = :status, statusShard = :shard, updatedAt = :now, " +
          "releaseToken = :token" +
          (withSeq ? ", lastSeq = :seq" : "") +
          setAgent.set,
        // Unless a writer without the lease moved the head on since (a cancel records `cancelled`
        // and its seq): the holder's resting status was read before that.
        ConditionExpression:
          "leaseOwner = :owner AND #status <> :cancelled" +
          (withSeq ? " AND (attribute_not_exists(lastSeq) OR lastSeq <= :seq)" : ""),
        ExpressionAttributeNames: { "#status": "status", ...setAgent.names },
        ExpressionAttributeValues: {
          ...setAgent.values,
          ":owner": str(owner),
          ":status": str(status),
          ":cancelled": str("cancelled"),
          ":shard": str(statusShardOf(status, runId, ctx.statusShards)),
          ":now": str(ctx.now().toISOString()),
          ":token": str(token),
          ...(withSeq ? { ":seq": num(lastSeq) } : {}),
        },
      }),
    );
    return true;
  } catch (error) {
    if (!isConditionalFailure(error)) throw toRunlogError(error, what, ctx.tableName);
    const head = await getItem(ctx, runId, HEAD_SEQ);
    if (head === undefined) return false;
    // The SDK sent the update twice and the first attempt was applied.
    if (wasRetried(error) && readString(head, "releaseToken") === token) return true;
    if (readString(head, "leaseOwner") !== owner) return false;
    // Still ours, and the head moved on: drop the lease alone, keeping what the head says.
    return dropLeaseOnly(ctx, runId, owner, what);
  }
}

/** Drop this owner's lease and nothing else (exact, as releaseLease: true when this call dropped it). */
async function dropLeaseOnly(
  ctx: StoreContext,
  runId: string,
  owner: string,
  what: string,
): Promise<boolean> {
  const token = randomUUID();
  try {
    await ctx.client.send(
      new UpdateItemCommand({
        TableName: ctx.tableName,
        Key: key(runId, HEAD_SEQ),
        UpdateExpression: "REMOVE leaseOwner, leaseUntil SET updatedAt = :now, releaseToken = :token",
        ConditionExpression: "leaseOwner = :owner",
        ExpressionAttributeValues: {
          ":owner": str(owner),
          ":now": str(ctx.now().toISOString()),
          ":token": str(token),
        },
      }),
    );
    return true;
  } catch (error) {
    if (!isConditionalFailure(error)) throw toRunlogError(error, what, ctx.tableName);
    if (!wasRetried(error)) return false;
    const head = await getItem(ctx, runId, HEAD_SEQ);
    return head !== undefined && readString(head, "releaseToken") === token;
  }
}
