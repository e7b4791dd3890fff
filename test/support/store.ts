import {
  connectDynamo as connectTarget,
  type DynamoConnection,
} from "../../lib/adapters/dynamodb/connect.ts";
import { readConfig } from "../../lib/runtime/readConfig.ts";
import { connectConfiguredStore, dynamoTarget, type OpenStore } from "../../lib/runtime/store.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** The store an environment points at, as a runlog process given that environment opens it. */
export function connectStore(options: { dataDir?: string; env: Env }): Promise<OpenStore> {
  return connectConfiguredStore(options);
}

/** The DynamoDB table an environment points at (it must point at one). */
export function connectDynamo(options: { env: Env; requestTimeoutMs?: number }): Promise<DynamoConnection> {
  const target = dynamoTarget(readConfig(options.env));
  if (target === undefined) throw new Error("this environment points at no DynamoDB table");
  return connectTarget({
    ...target,
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
  });
}
