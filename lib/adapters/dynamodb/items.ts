import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { ownerScope } from "../../core/principal.ts";
import { RUN_STATUSES, type RunStatus } from "../../core/status.ts";
import type { AutoResumes, RunHead } from "../../ports/eventStore.ts";
import { STATUS_SHARD_ATTRIBUTE, statusShardOf } from "./shards.ts";

/** One stored DynamoDB item in wire form. */
export type Item = Record<string, AttributeValue>;

/** The run-head shares the run's partition, below every event, so one Query can never confuse the two. */
export const HEAD_SEQ = 0;

/** The TTL attribute DynamoDB deletes items by (epoch seconds); cdk/ declares the same name. */
export const TTL_ATTRIBUTE = "expiresAt";

/** Attribute value builders (payloads are also stored as binary). */
export const str = (value: string): AttributeValue => ({ S: value });
export const num = (value: number): AttributeValue => ({ N: String(value) });

/** The primary key of an event (seq >= 1) or of the head (seq 0). */
export function key(runId: string, seq: number): Item {
  return { runId: str(runId), seq: num(seq) };
}

/** A string attribute, or undefined when it is missing or of another type. */
export function readString(item: Item, name: string): string | undefined {
  const value = item[name];
  return value && "S" in value ? value.S : undefined;
}

/** A numeric attribute, or undefined when it is missing or not a finite number. */
export function readNumber(item: Item, name: string): number | undefined {
  const value = item[name];
  if (!value || !("N" in value) || value.N === undefined) return undefined;
  const parsed = Number(value.N);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/**
 * Whether an item's TTL has passed by the store's clock. DynamoDB deletes such
 * items only eventually (DynamoDB Local and dynalite never): reads treat them as gone.
 */
export function isExpired(item: Item, now: Date): boolean {
  const ttl = readNumber(item, TTL_ATTRIBUTE);
  return ttl !== undefined && ttl * 1000 <= now.getTime();
}

/** A head as written in full (createRun, repair); partial updates go through UpdateItem. */
export function encodeHead(head: RunHead, statusShards: number): Item {
  const item: Item = {
    ...key(head.runId, HEAD_SEQ),
    status: str(head.status),
    // The sharded status index's key (shards.ts): every write of a head's status writes it too.
    [STATUS_SHARD_ATTRIBUTE]: str(statusShardOf(head.status, head.runId, statusShards)),
    lastSeq: num(head.lastSeq),
    agent: str(head.agent),
    createdAt: str(head.createdAt),
    updatedAt: str(head.updatedAt),
    leaseVersion: num(head.leaseVersion),
  };
  if (head.lease) {
    item.leaseOwner = str(head.lease.owner);
    item.leaseUntil = num(head.lease.until);
  }
  if (head.autoResumes) {
    item.autoResumes = num(head.autoResumes.count);
    if (head.autoResumes.lastAt !== undefined) item.autoResumedAt = num(head.autoResumes.lastAt);
  }
  // A fork's head is in the parent index (PARENT_INDEX) by `parentRunId`; other heads are not.
  if (head.parent) {
    item.parentRunId = str(head.parent.runId);
    item.parentSeq = num(head.parent.seq);
  }
  // A head with an owner is in the owner index (OWNER_INDEX) by `ownerScope`; ownerless ones are not.
  if (head.owner) {
    item.ownerId = str(head.owner.id);
    if (head.owner.tenant !== undefined) item.ownerTenant = str(head.owner.tenant);
    item.ownerScope = str(ownerScope(head.owner));
  }
  return item;
}

/** The head's AutoResumes record: `autoResumes` (the count) and `autoResumedAt`; absent when never resumed so. */
function decodeAutoResumes(item: Item): AutoResumes | undefined {
  const count = readNumber(item, "autoResumes");
  if (count === undefined) return undefined;
  const lastAt = readNumber(item, "autoResumedAt");
  return lastAt === undefined ? { count } : { count, lastAt };
}

const isStatus = (value: string | undefined): value is RunStatus =>
  value !== undefined && (RUN_STATUSES as readonly string[]).includes(value);

/** A head item, or undefined when it lacks what a head needs (then the caller repairs it from the log). */
export function decodeHead(item: Item): RunHead | undefined {
  const runId = readString(item, "runId");
  const status = readString(item, "status");
  const lastSeq = readNumber(item, "lastSeq");
  const agent = readString(item, "agent");
  const createdAt = readString(item, "createdAt");
  if (runId === undefined || !isStatus(status) || lastSeq === undefined) return undefined;
  if (agent === undefined || createdAt === undefined) return undefined;
  const head: RunHead = {
    runId,
    agent,
    status,
    lastSeq,
    createdAt,
    updatedAt: readString(item, "updatedAt") ?? createdAt,
    leaseVersion: readNumber(item, "leaseVersion") ?? 0,
  };
  const owner = readString(item, "leaseOwner");
  const until = readNumber(item, "leaseUntil");
  if (owner !== undefined && until !== undefined) head.lease = { owner, until };
  const autoResumes = decodeAutoResumes(item);
  if (autoResumes) head.autoResumes = autoResumes;
  const parentRunId = readString(item, "parentRunId");
  const parentSeq = readNumber(item, "parentSeq");
  if (parentRunId !== undefined && parentSeq !== undefined)
    head.parent = { runId: parentRunId, seq: parentSeq };
  const ownerId = readString(item, "ownerId");
  const ownerTenant = readString(item, "ownerTenant");
  if (ownerId !== undefined)
    head.owner = ownerTenant === undefined ? { id: ownerId } : { id: ownerId, tenant: ownerTenant };
  return head;
}
