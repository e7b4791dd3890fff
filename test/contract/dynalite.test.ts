import { afterAll } from "vitest";
import { DynamoEventStore } from "../../lib/adapters/dynamodb/dynamoEventStore.ts";
import { type InProcessDynalite, startDynalite } from "../support/dynalite.ts";
import { connectDynamo } from "../support/store.ts";
import { dynamoRaw } from "./dynamoRaw.ts";
import { describeEventStoreContract } from "./eventStore.contract.ts";

let server: InProcessDynalite | undefined;

/** The store contract against the DynamoDB adapter on dynalite, in this process (tests only). */
describeEventStoreContract("DynamoDB adapter on dynalite", async () => {
  server = await startDynalite();
  const { client, tableName } = await connectDynamo({ env: server.env() });
  return {
    store: new DynamoEventStore({ client, tableName }),
    raw: dynamoRaw(client, tableName),
    close: async () => client.destroy(),
  };
});

afterAll(() => server?.stop());
