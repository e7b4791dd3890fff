import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { STATUS_SHARD_ATTRIBUTE } from "../../lib/adapters/dynamodb/shards.ts";
import { PARENT_INDEX, STATUS_SHARD_INDEX, tableDefinition } from "../../lib/adapters/dynamodb/table.ts";

/** A table as runlog made it before forks were indexed (the status index only), ACTIVE. */
export async function createTableWithoutParentIndex(
  client: DynamoDBClient,
  tableName: string,
): Promise<void> {
  const layout = tableDefinition(tableName);
  await client.send(
    new CreateTableCommand({
      ...layout,
      AttributeDefinitions: layout.AttributeDefinitions?.filter((a) => a.AttributeName !== "parentRunId"),
      GlobalSecondaryIndexes: layout.GlobalSecondaryIndexes?.filter((i) => i.IndexName !== PARENT_INDEX),
    }),
  );
  for (;;) {
    const table = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
    if (table?.TableStatus === "ACTIVE") return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A table as runlog made it before the status index was sharded (`byStatus` and `byParent` only), ACTIVE. */
export async function createTableWithUnshardedStatus(
  client: DynamoDBClient,
  tableName: string,
): Promise<void> {
  const layout = tableDefinition(tableName, { legacyStatusIndex: true });
  await client.send(
    new CreateTableCommand({
      ...layout,
      AttributeDefinitions: layout.AttributeDefinitions?.filter(
        (a) => a.AttributeName !== STATUS_SHARD_ATTRIBUTE,
      ),
      GlobalSecondaryIndexes: layout.GlobalSecondaryIndexes?.filter(
        (i) => i.IndexName !== STATUS_SHARD_INDEX,
      ),
    }),
  );
  for (;;) {
    const table = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
    if (table?.TableStatus === "ACTIVE") return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
