import { GetItemCommand, QueryCommand, UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import { NotFoundError, PermanentError } from "../../core/errors.ts";
import { ownerScope } from "../../core/principal.ts";
import type { RunStatus } from "../../core/status.ts";
import type { RunHead } from "../../ports/eventStore.ts";
import { identityFrom } from "../newHead.ts";
import { attempt, attemptConditional, type StoreContext } from "./context.ts";
import {
  decodeHead,
  HEAD_SEQ,
  type Item,
  isExpired,
  key,
  num,
  readNumber,
  str,
  TTL_ATTRIBUTE,
} from "./items.ts";
import { decodeEventItems } from "./payloads.ts";
import { statusShardOf } from "./shards.ts";

/** Read one item with a strongly consistent read: heads and seq 1 decide what happens next. */
export async function getItem(ctx: StoreContext, runId: string, seq: number): Promise<Item | undefined> {
  const what = `read seq ${seq} of run ${runId}`;
  const out = await attempt(ctx, what, () =>
    ctx.client.send(
      new GetItemCommand({ TableName: ctx.tableName, Key: key(runId, seq), ConsistentRead: true }),
    ),
  );
  return out.Item;
}

/** The highest event seq stored for a run, undefined when it has none (or its last one has expired). */
export async function lastEventSeq(ctx: StoreContext, runId: string): Promise<number | undefined> {
  const out = await attempt(ctx, `find the last event of run ${runId}`, () =>
    ctx.client.send(
      new QueryCommand({
        TableName: ctx.tableName,
        KeyConditionExpression: "runId = :runId AND #seq > :head",
        ExpressionAttributeNames: { "#seq": "seq", "#ttl": TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ":runId": str(runId), ":head": num(HEAD_SEQ) },
        ProjectionExpression: "#seq, #ttl",
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    ),
  );
  const item = out.Items?.[0];
  return item && !isExpired(item, ctx.now()) ? readNumber(item, "seq") : undefined;
}

/**
 * Rebuild a missing or partial head from the log; identity fields come from seq 1. False, writing
 * nothing, when seq 1 is no `run_started` (identityFrom): there is no run yet.
 */
async function repairHead(ctx: StoreContext, runId: string, last: number): Promise<boolean> {
  const now = ctx.now().toISOString();
  const firstItem = await getItem(ctx, runId, 1);
  const [first] = firstItem ? await decodeEventItems(ctx, runId, [firstItem]) : [];
  const identity = identityFrom(first);
  if (!identity) return false;
  const { agent, createdAt, parent, owner } = identity;
  // A fork's head also names its parent, which puts it back in the parent index.
  const setParent = parent
    ? ", parentRunId = if_not_exists(parentRunId, :parentRunId), parentSeq = if_not_exists(parentSeq, :parentSeq)"
    : "";
  // And its owner, which puts it back in the owner index.
  const setOwner = owner
    ? ", ownerId = if_not_exists(ownerId, :ownerId), ownerScope = if_not_exists(ownerScope, :ownerScope)" +
      (owner.tenant === undefined ? "" : ", ownerTenant = if_not_exists(ownerTenant, :ownerTenant)")
    : "";
  await attemptConditional(ctx, `repair the head of run ${runId}`, () =>
    ctx.client.send(
      new UpdateItemCommand({
        TableName: ctx.tableName,
        Key: key(runId, HEAD_SEQ),
        UpdateExpression:
          "SET lastSeq = :last, updatedAt = :now, #agent = if_not_exists(#agent, :agent), " +
          "createdAt = if_not_exists(createdAt, :createdAt), #status = if_not_exists(#status, :status), " +
          "statusShard = if_not_exists(statusShard, :shard), " +
          `leaseVersion = if_not_exists(leaseVersion, :zero)${setParent}${setOwner}`,
        ConditionExpression: "attribute_not_exists(lastSeq) OR lastSeq <= :last",
        // `agent` and `status` are DynamoDB reserved words.
        ExpressionAttributeNames: { "#status": "status", "#agent": "agent" },
        ExpressionAttributeValues: {
          ":last": num(last),
          ":now": str(now),
          ":agent": str(agent),
          ":createdAt": str(createdAt),
          ":status": str("interrupted"),
          ":shard": str(statusShardOf("interrupted", runId, ctx.statusShards)),
          ":zero": num(0),
          ...(parent ? { ":parentRunId": str(parent.runId), ":parentSeq": num(parent.seq) } : {}),
          ...(owner ? { ":ownerId": str(owner.id), ":ownerScope": str(ownerScope(owner)) } : {}),
          ...(owner?.tenant === undefined ? {} : { ":ownerTenant": str(owner.tenant) }),
        },
      }),
    ),
  );
  return true;
}

/** The head, with the log's last seq; a missing or partial one is rebuilt from the log. */
export async function getHead(ctx: StoreContext, runId: string): Promise<RunHead | undefined> {
  const [item, last] = await Promise.all([getItem(ctx, runId, HEAD_SEQ), lastEventSeq(ctx, runId)]);
  // A run whose head has expired is gone, whatever DynamoDB has not deleted yet.
  if (item && isExpired(item, ctx.now())) return undefined;
  const head = item ? decodeHead(item) : undefined;
  if (last === undefined) return head;
  if (head && head.lastSeq >= last) return head;
  // A head that only lags is normal (appends do not touch it): report the log's last seq, write nothing.
  if (head) return { ...head, lastSeq: last };
  if (!(await repairHead(ctx, runId, last))) return undefined;
  const repaired = await getItem(ctx, runId, HEAD_SEQ);
  const decoded = repaired ? decodeHead(repaired) : undefined;
  if (!decoded)
    throw new PermanentError(`run ${runId}: the head could not be repaired from the log`, { runId });
  return decoded;
}

/**
 * The part of a head update that records the agent in charge (none when not given). `agent` is a
 * DynamoDB reserved word, so it goes by a name placeholder.
 */
export function agentUpdate(agent: string | undefined): {
  set: string;
  names: Record<string, string>;
  values: Item;
} {
  if (agent === undefined) return { set: "", names: {}, values: {} };
  return { set: ", #agent = :agent", names: { "#agent": "agent" }, values: { ":agent": str(agent) } };
}

/** Record the status a run rests in (and the agent in charge, when given), moving lastSeq forward too when the head lags behind it. */
export async function setStatus(
  ctx: StoreContext,
  runId: string,
  status: RunStatus,
  lastSeq: number,
  agent?: string,
) {
  const what = `set the status of run ${runId} to ${status}`;
  const setAgent = agentUpdate(agent);
  const update = (withSeq: boolean) =>
    attemptConditional(ctx, what, () =>
      ctx.client.send(
        new UpdateItemCommand({
          TableName: ctx.tableName,
          Key: key(runId, HEAD_SEQ),
          UpdateExpression: `SET #status = :status, statusShard = :shard, updatedAt = :now${withSeq ? ", lastSeq = :seq" : ""}${setAgent.set}`,
          ConditionExpression: withSeq
            ? "attribute_exists(runId) AND lastSeq <= :seq"
            : "attribute_exists(runId)",
          ExpressionAttributeNames: { "#status": "status", ...setAgent.names },
          ExpressionAttributeValues: {
            ...setAgent.values,
            ":status": str(status),
            ":shard": str(statusShardOf(status, runId, ctx.statusShards)),
            ":now": str(ctx.now().toISOString()),
            ...(withSeq ? { ":seq": num(lastSeq) } : {}),
          },
        }),
      ),
    );
  for (let tries = 0; tries < 2; tries++) {
    if ((await update(true)) || (await update(false))) return;
    // No head: rebuild it from the log (or learn the run does not exist), then try once more.
    if (!(await getHead(ctx, runId)))
      throw new NotFoundError(`${what}: run ${runId} does not exist`, { runId });
  }
  throw new PermanentError(`${what}: the head could not be updated`, { runId });
}
