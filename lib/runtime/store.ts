import { relative, resolve } from "node:path";
import type { DynamoTarget } from "../adapters/dynamodb/connect.ts";
import type { Durability } from "../adapters/sqlite/connection.ts";
import { SqliteEventStore, sqliteFile } from "../adapters/sqlite/sqliteEventStore.ts";
import type { EventStore } from "../ports/eventStore.ts";
import { type RunlogConfig, readConfig } from "./readConfig.ts";

/** The table used on a DynamoDB-compatible server when the configuration names none. */
export const DEFAULT_TABLE_NAME = "runlog";

export interface StoreOptions {
  /** Where the local store's file lives. @default ".runlog" */
  dataDir?: string;
  /** How the SQLite store commits (see Durability). @default "full" */
  durability?: Durability;
  /** Store the events in this DynamoDB table instead of the SQLite file. */
  dynamodb?: DynamoTarget;
  /** Runs execute on this store (not only reads): SQLite prepares their statements at open. @default false */
  forRuns?: boolean;
  /** Only read: a table missing on a DynamoDB-compatible server is an error, not created. @default false */
  readOnly?: boolean;
}

export interface OpenStore {
  store: EventStore;
  /** One line saying where events are stored. */
  where: string;
  close(): Promise<void>;
}

const shown = (path: string) => {
  const rel = relative(process.cwd(), path);
  return rel.startsWith("..") || rel === "" ? path : rel;
};

/**
 * The event store the options name: the DynamoDB table of `dynamodb` when given (see
 * connectDynamo), else the SQLite file in `dataDir`, opened in this process (no server).
 * The one place the store is chosen. The AWS SDK loads only when DynamoDB is
 * chosen: a local command does not pay for it.
 */
export async function connectStore(options: StoreOptions = {}): Promise<OpenStore> {
  if (options.dynamodb) {
    const { connectDynamoStore } = await import("../adapters/dynamodb/connect.ts");
    return connectDynamoStore(options.dynamodb, { createTable: !options.readOnly });
  }
  const store = new SqliteEventStore({
    file: sqliteFile(resolve(options.dataDir ?? ".runlog")),
    durability: options.durability ?? "full",
    forRuns: options.forRuns ?? false,
  });
  return { store, where: `SQLite, ${shown(store.file)}`, close: () => store.close() };
}

/**
 * The DynamoDB table the configuration points at, if any: a DynamoDB-compatible server at
 * `dynamodbEndpoint` (its `table`, else "runlog"; "local" region and keys unless the AWS ones
 * are set), else `table` on AWS. Undefined: the SQLite file in the data dir.
 */
export function dynamoTarget(config: RunlogConfig): DynamoTarget | undefined {
  const target = dynamoTable(config);
  return target === undefined || config.statusShards === undefined
    ? target
    : { ...target, statusShards: config.statusShards };
}

function dynamoTable(config: RunlogConfig): DynamoTarget | undefined {
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
