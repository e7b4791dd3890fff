import { DynamoEventStore } from "../../lib/adapters/dynamodb/dynamoEventStore.ts";
import { startDynamoDbLocal } from "../support/dynamodbLocal.ts";
import { connectDynamo } from "../support/store.ts";
import { dynamoRaw } from "./dynamoRaw.ts";
import { describeEventStoreContract } from "./eventStore.contract.ts";

/**
 * The store contract against AWS's own DynamoDB Local (Java, in memory), through
 * `RUNLOG_DYNAMODB_ENDPOINT` as a user would point runlog at it. Without Java
 * this fails, saying what to install: it never skips.
 */
describeEventStoreContract("DynamoDB Local", async () => {
  const server = await startDynamoDbLocal();
  try {
    const env = { RUNLOG_DYNAMODB_ENDPOINT: server.endpoint, RUNLOG_TABLE: "runlog-contract" };
    const { client, tableName } = await connectDynamo({ env });
    return {
      store: new DynamoEventStore({ client, tableName }),
      raw: dynamoRaw(client, tableName),
      close: async () => {
        client.destroy();
        await server.stop();
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
});
