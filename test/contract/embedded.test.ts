import { rmSync } from "node:fs";
import { afterAll } from "vitest";
import { connectDynamo } from "../../lib/adapters/dynamodb/connect.ts";
import { DynamoEventStore } from "../../lib/adapters/dynamodb/dynamoEventStore.ts";
import { stopEmbeddedServer } from "../../lib/adapters/embedded/index.ts";
import { embeddedEnv, tempDataDir } from "../adapters/embedded/helpers.ts";
import { describeEventStoreContract } from "./eventStore.contract.ts";

const dataDir = tempDataDir("contract");

describeEventStoreContract("embedded dynalite", async () => {
  const { client, tableName } = await connectDynamo({ dataDir, env: embeddedEnv() });
  return {
    store: new DynamoEventStore({ client, tableName }),
    rawClient: client,
    tableName,
    close: async () => client.destroy(),
  };
});

afterAll(async () => {
  await stopEmbeddedServer(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});
