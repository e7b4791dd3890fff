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

/** Sparse index over run-heads only (events carry no `status`), for listing and finding stale runs. */
export const STATUS_INDEX = "byStatus";

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

/** The one table layout every runlog store uses; cdk/ must declare the same keys and index. */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [
      { AttributeName: "runId", AttributeType: "S" },
      { AttributeName: "seq", AttributeType: "N" },
      { AttributeName: "status", AttributeType: "S" },
      { AttributeName: "updatedAt", AttributeType: "S" },
      { AttributeName: "parentRunId", AttributeType: "S" },
    ],
    KeySchema: [
      { AttributeName: "runId", KeyType: "HASH" },
      { AttributeName: "seq", KeyType: "RANGE" },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: STATUS_INDEX,
        KeySchema: [
          { AttributeName: "status", KeyType: "HASH" },
          { AttributeName: "updatedAt", KeyType: "RANGE" },
        ],
        Projection: { ProjectionType: "ALL" },
      },
      parentIndex,
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
  if (!hasIndex(table, STATUS_INDEX)) {
    throw new PermanentError(`table ${tableName} has no global secondary index ${STATUS_INDEX}`);
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
