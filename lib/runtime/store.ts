import type { DynamoTarget } from "../adapters/dynamodb/connect.ts";
import { connectStore, type OpenStore, type StoreOptions } from "../adapters/store.ts";
import { type RunlogConfig, readConfig } from "./config.ts";

/** The table used on a DynamoDB-compatible server when the configuration names none. */
export const DEFAULT_TABLE_NAME = "runlog";

/**
 * The DynamoDB table the configuration points at, if any: a DynamoDB-compatible server at
 * `dynamodbEndpoint` (its `table`, else "runlog"; "local" region and keys unless the AWS ones
 * are set), else `table` on AWS. Undefined: the SQLite file in the data dir.
 */
export function dynamoTarget(config: RunlogConfig): DynamoTarget | undefined {
  const { dynamodbEndpoint: endpoint, table } = config;
  if (endpoint !== undefined) {
    const { awsAccessKeyId: accessKeyId, awsSecretAccessKey: secretAccessKey, awsSessionToken } = config;
    const credentials =
      accessKeyId === undefined || secretAccessKey === undefined
        ? undefined
        : {
            accessKeyId,
            secretAccessKey,
            ...(awsSessionToken === undefined ? {} : { sessionToken: awsSessionToken }),
          };
    return {
      endpoint,
      tableName: table ?? DEFAULT_TABLE_NAME,
      ...(config.awsRegion === undefined ? {} : { region: config.awsRegion }),
      ...(credentials === undefined ? {} : { credentials }),
    };
  }
  if (table === undefined) return undefined;
  const region = config.awsRegion ?? config.awsDefaultRegion;
  return { tableName: table, ...(region === undefined ? {} : { region }) };
}

/** The store options the configuration gives, for the store in `dataDir`. */
export function storeOptions(config: RunlogConfig, dataDir: string): StoreOptions {
  const dynamodb = dynamoTarget(config);
  return { dataDir, durability: config.durability, ...(dynamodb === undefined ? {} : { dynamodb }) };
}

/**
 * The store an environment points at, for a tool or a test that has only the environment:
 * it is read here, once (see readConfig); the data dir is the given one.
 */
export async function connectConfiguredStore(options: {
  dataDir?: string;
  env?: Readonly<Record<string, string | undefined>>;
}): Promise<OpenStore> {
  const config = readConfig(options.env);
  return connectStore(storeOptions(config, options.dataDir ?? config.dataDir));
}
