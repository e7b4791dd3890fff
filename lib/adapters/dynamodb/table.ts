import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
  type TableDescription,
} from "@aws-sdk/client-dynamodb";
import { PermanentError, RetryableError } from "../../core/errors.ts";
import { toRunlogError } from "./errors.ts";
import { STATUS_SHARD_ATTRIBUTE } from "./shards.ts";

/**
 * Sparse index over run-heads only (events carry no `statusShard`), for listing and finding stale
 * runs: keyed by `${status}#${shard}` (shards.ts), so the heads of one status are spread over
 * several partitions and the writes of a busy fleet's running heads are too.
 */
export const STATUS_SHARD_INDEX = "byStatusShard";

/**
 * The index runlog keyed by the status alone before the status was sharded: one partition took
 * every head write of every running run. Declared only while a deployed table is upgraded
 * (`legacyStatusIndex`); nothing reads it.
 */
export const LEGACY_STATUS_INDEX = "byStatus";

/** Sparse index over the heads of forks only (no other item has `parentRunId`), for listing a run's forks. */
export const PARENT_INDEX = "byParent";

/**
 * The parent index as the table declares it. A table made before it existed lacks it: listing
 * forks there names it (indexedHeads.ts); deploying runlog's table construct again adds it.
 */
const parentIndex: GlobalSecondaryIndex = {
  IndexName: PARENT_INDEX,
  KeySchema: [
    { AttributeName: "parentRunId", KeyType: "HASH" },
    { AttributeName: "updatedAt", KeyType: "RANGE" },
  ],
  Projection: { ProjectionType: "ALL" },
};

/** Sparse index over the heads of runs with an owner (`ownerScope`, core/principal.ts), for listing and counting an owner's runs. */
export const OWNER_INDEX = "byOwner";

/** The owner index as the table declares it; a table made before it existed names it when listed by owner. */
const ownerIndex: GlobalSecondaryIndex = {
  IndexName: OWNER_INDEX,
  KeySchema: [
    { AttributeName: "ownerScope", KeyType: "HASH" },
    { AttributeName: "updatedAt", KeyType: "RANGE" },
  ],
  Projection: { ProjectionType: "ALL" },
};

const legacyStatusIndex: GlobalSecondaryIndex = {
  IndexName: LEGACY_STATUS_INDEX,
  KeySchema: [
    { AttributeName: "status", KeyType: "HASH" },
    { AttributeName: "updatedAt", KeyType: "RANGE" },
  ],
  Projection: { ProjectionType: "ALL" },
};

/**
 * The one table layout every runlog store uses; cdk/ must declare the same keys and indexes.
 * `legacyStatusIndex` keeps the index of older runlogs too, for the first of the two deploys an
 * upgrade takes (DynamoDB adds or drops one index per table update).
 */
export function tableDefinition(
  tableName: string,
  options: { legacyStatusIndex?: boolean } = {},
): CreateTableCommandInput {
  const legacy = options.legacyStatusIndex === true;
  return {
    TableName: tableName,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [
      { AttributeName: "runId", AttributeType: "S" },
      { AttributeName: "seq", AttributeType: "N" },
      { AttributeName: STATUS_SHARD_ATTRIBUTE, AttributeType: "S" },
      ...(legacy ? [{ AttributeName: "status", AttributeType: "S" as const }] : []),
      { AttributeName: "updatedAt", AttributeType: "S" },
      { AttributeName: "parentRunId", AttributeType: "S" },
      ...(legacy ? [] : [{ AttributeName: "ownerScope", AttributeType: "S" as const }]),
    ],
    KeySchema: [
      { AttributeName: "runId", KeyType: "HASH" },
      { AttributeName: "seq", KeyType: "RANGE" },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: STATUS_SHARD_INDEX,
        KeySchema: [
          { AttributeName: STATUS_SHARD_ATTRIBUTE, KeyType: "HASH" },
          { AttributeName: "updatedAt", KeyType: "RANGE" },
        ],
        Projection: { ProjectionType: "ALL" },
      },
      parentIndex,
      // CloudFormation adds or drops one index per table update: a table still keeping the legacy
      // index gets the owner index once that upgrade is finished (cdk/README.md, "Upgrading").
      ...(legacy ? [legacyStatusIndex] : [ownerIndex]),
    ],
  };
}

const isActive = (table: TableDescription) =>
  table.TableStatus === "ACTIVE" &&
  (table.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === "ACTIVE");

const hasIndex = (table: TableDescription, name: string) =>
  (table.GlobalSecondaryIndexes ?? []).some((index) => index.IndexName === name);

/** Refuse a table of another shape up front, rather than failing later on the first query. */
function checkShape(table: TableDescription, tableName: string): void {
  const keys = (table.KeySchema ?? []).map((key) => `${key.AttributeName}:${key.KeyType}`).join(",");
  if (keys !== "runId:HASH,seq:RANGE") {
    throw new PermanentError(
      `table ${tableName} exists with key schema [${keys}], expected runId (HASH) and seq (RANGE)`,
    );
  }
  if (!hasIndex(table, STATUS_SHARD_INDEX)) {
    const older = hasIndex(table, LEGACY_STATUS_INDEX)
      ? ` (it has ${LEGACY_STATUS_INDEX}: an older runlog made it; see "Upgrading a deployed stack" in cdk/README.md)`
      : "";
    throw new PermanentError(
      `table ${tableName} has no global secondary index ${STATUS_SHARD_INDEX}${older}`,
    );
  }
}

async function describe(client: DynamoDBClient, tableName: string): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if ((error as { name?: unknown }).name === "ResourceNotFoundException") return undefined;
    throw toRunlogError(error, `describe table ${tableName}`);
  }
}

/** Check a table made elsewhere (a deployed stack's): it exists and has runlog's keys and index; never creates it. */
export async function checkTable(client: DynamoDBClient, tableName: string): Promise<void> {
  const table = await describe(client, tableName);
  if (!table) throw new PermanentError(`table ${tableName} does not exist`);
  checkShape(table, tableName);
}

/** Create the table if it is missing and wait until it and its indexes are ACTIVE; safe to race. */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let table = await describe(client, tableName);
  if (!table) {
    try {
      await client.send(new CreateTableCommand(tableDefinition(tableName)));
    } catch (error) {
      // Another process created it first: fine, wait for it like our own.
      if ((error as { name?: unknown }).name !== "ResourceInUseException") {
        throw toRunlogError(error, `create table ${tableName}`);
      }
    }
  }
  for (let delay = 25; ; delay = Math.min(delay * 2, 1_000)) {
    table = await describe(client, tableName);
    if (table) {
      checkShape(table, tableName);
      if (isActive(table)) return;
    }
    if (Date.now() > deadline) {
      throw new RetryableError(
        `table ${tableName} is not ACTIVE yet (status ${table?.TableStatus ?? "missing"})`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
