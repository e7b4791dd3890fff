import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import { awsClientConfig } from "../../adapters/aws/clientConfig.ts";
import { DynamoEventStore } from "../../adapters/dynamodb/dynamoEventStore.ts";
import { EventBridgeLifecycleBus } from "../../adapters/eventbridge/lifecycleBus.ts";
import { PermanentError } from "../../core/errors.ts";
import type { PublishDeps } from "../../steps/publishLifecycle.ts";
import { NAMES } from "../config.ts";
import { readConfig } from "../readConfig.ts";
import { made } from "./clientObservers.ts";

/**
 * The lifecycle publisher's deps, read once per cold start: the deployment's table (to read the
 * events its stream names) and its own bus. Only these two clients: the publisher runs no steps,
 * so it loads no model client, agents or Step Functions.
 */
export function publisherDeps(
  env: NodeJS.ProcessEnv,
  clients: { dynamodb?: DynamoDBClient; eventBridge?: EventBridgeClient } = {},
): PublishDeps {
  const config = readConfig(env, { for: "handlers" });
  if (config.eventBusName === undefined) {
    throw new PermanentError(`${NAMES.eventBusName} is not set: this function has no bus to publish on`);
  }
  const client = clients.dynamodb ?? made(new DynamoDBClient(awsClientConfig()));
  return {
    store: new DynamoEventStore({
      client,
      tableName: config.tableName,
      ...(config.statusShards === undefined ? {} : { statusShards: config.statusShards }),
    }),
    bus: new EventBridgeLifecycleBus({
      client: clients.eventBridge ?? made(new EventBridgeClient(awsClientConfig())),
      busName: config.eventBusName,
    }),
    ...(config.apiUrl === undefined ? {} : { options: { apiUrl: config.apiUrl } }),
  };
}
