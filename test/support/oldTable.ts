import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { PARENT_INDEX, tableDefinition } from "../../lib/adapters/dynamodb/table.ts";

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
