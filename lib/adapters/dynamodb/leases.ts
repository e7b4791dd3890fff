import { UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import { LeaseHeldError, NotFoundError } from "../../core/errors.ts";
import type { RunStatus } from "../../core/status.ts";
import type { Lease } from "../../ports/eventStore.ts";
import { attemptConditional, type StoreContext } from "./context.ts";
import { getHead } from "./heads.ts";
import { HEAD_SEQ, key, num, str } from "./items.ts";

const describeLease = (lease: Lease | undefined) =>
  lease ? `held by ${lease.owner} until ${new Date(lease.until).toISOString()}` : "not held";

async function casClaim(ctx: StoreContext, runId: string, lease: Lease, expect: number): Promise<boolean> {
  // A head written before leases existed has no version: it counts as version 0.
  const versionMatches =
    expect === 0
      ? "(attribute_not_exists(leaseVersion) OR leaseVersion = :expect)"
      : "leaseVersion = :expect";
  return attemptConditional(ctx, `claim the lease of run ${runId} for ${lease.owner}`, () =>
    ctx.client.send(
      new UpdateItemCommand({
        TableName: ctx.tableName,
        Key: key(runId, HEAD_SEQ),
        UpdateExpression:
          "SET leaseOwner = :owner, leaseUntil = :until, #status = :running, leaseVersion = :next, updatedAt = :now",
        ConditionExpression: `attribute_exists(runId) AND ${versionMatches}`,
        ExpressionAttributeNames: { "#status": "status" },
        ExpressionAttributeValues: {
          ":owner": str(lease.owner),
          ":until": num(lease.until),
          ":running": str("running"),
          ":expect": num(expect),
          ":next": num(expect + 1),
          ":now": str(ctx.now().toISOString()),
        },
      }),
    ),
  );
}

/** Compare-and-set on leaseVersion: of several claimers that read the same version, exactly one wins. */
export async function claimLease(ctx: StoreContext, runId: string, lease: Lease, expect: number) {
  if (await casClaim(ctx, runId, lease, expect)) return;
  // Learn why, repairing a missing head on the way; a head rebuilt at the expected version may be claimed.
  const stored = await getHead(ctx, runId);
  if (!stored) throw new NotFoundError(`claim the lease of run ${runId}: the run does not exist`);
  // An SDK retry of a claim whose answer was lost finds the lease already ours (owners are unique).
  if (stored.lease?.owner === lease.owner && stored.lease.until === lease.until) return;
  let current = stored;
  if (stored.leaseVersion === expect) {
    if (await casClaim(ctx, runId, lease, expect)) return;
    current = (await getHead(ctx, runId)) ?? stored;
  }
  throw new LeaseHeldError(
    `run ${runId}: lease not claimed by ${lease.owner}: expected lease version ${expect} but it is ` +
      `${current.leaseVersion} (${describeLease(current.lease)}); another executor claimed it first`,
  );
}

/** Extend the lease only while this owner still holds it. */
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

/** Drop the lease and record the resting status; a non-holder's release changes nothing. */
export async function releaseLease(
  ctx: StoreContext,
  runId: string,
  owner: string,
  status: RunStatus,
  lastSeq?: number,
): Promise<boolean> {
  const withSeq = lastSeq !== undefined;
  return attemptConditional(ctx, `release the lease of run ${runId} held by ${owner}`, () =>
    ctx.client.send(
      new UpdateItemCommand({
        TableName: ctx.tableName,
        Key: key(runId, HEAD_SEQ),
        UpdateExpression: `REMOVE leaseOwner, leaseUntil SET #status = :status, updatedAt = :now${withSeq ? ", lastSeq = :seq" : ""}`,
        // The holder's last seq is the log's: nobody else writes while it holds the lease.
        ConditionExpression: "leaseOwner = :owner",
        ExpressionAttributeNames: { "#status": "status" },
        ExpressionAttributeValues: {
          ":owner": str(owner),
          ":status": str(status),
          ":now": str(ctx.now().toISOString()),
          ...(withSeq ? { ":seq": num(lastSeq) } : {}),
        },
      }),
    ),
  );
}
