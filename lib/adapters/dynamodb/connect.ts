import { DynamoDBClient, type DynamoDBClientConfig } from "@aws-sdk/client-dynamodb";
import { AWS_REQUEST } from "../../workflow/timeouts.ts";
import { awsClientConfig } from "../aws/clientConfig.ts";
import { sdkRegion } from "../aws/region.ts";
import { DynamoEventStore } from "./dynamoEventStore.ts";
import { ensureTable } from "./table.ts";

/** Static AWS credentials (a DynamoDB-compatible server accepts any). */
export interface DynamoCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Which DynamoDB table the events are in, and how to reach it (lib/runtime/store.ts says it from the configuration). */
export interface DynamoTarget {
  tableName: string;
  /** A DynamoDB-compatible server (the table is created there if missing); AWS itself when absent. */
  endpoint?: string;
  /** @default "local" with an endpoint, else the SDK's own */
  region?: string;
  /** @default "local" keys with an endpoint, else the SDK's default chain */
  credentials?: DynamoCredentials;
  /** Give up on one HTTP request after this long (then the SDK retries, up to 3 attempts). @default 15000 (AWS_REQUEST.outsideAwsRequestMs) */
  requestTimeoutMs?: number;
  /** The status index's shards on this table (as the stack that made it says). @default 8 */
  statusShards?: number;
}

export interface DynamoConnection {
  client: DynamoDBClient;
  tableName: string;
  /** One line saying where events are stored. */
  where: string;
}

const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };

/** Reached from this machine, not from inside AWS: the longer request timeout unless told otherwise. */
const common = (target: DynamoTarget): DynamoDBClientConfig =>
  awsClientConfig(target.requestTimeoutMs ?? AWS_REQUEST.outsideAwsRequestMs);

async function ensureTableOrClose(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await ensureTable(client, tableName);
  } catch (error) {
    client.destroy();
    throw error;
  }
}

export interface ConnectOptions {
  /**
   * Create the table at the target's endpoint when it is missing. A reader (`runlog ls`, `show`)
   * passes false: looking at a table never makes one, so a mistyped name is reported, not created.
   * @default true
   */
  createTable?: boolean;
}

/**
 * A DynamoDB client on the target's table: at its endpoint (any DynamoDB-compatible server,
 * table created if missing unless told not to), else on AWS (deployed by cdk/, not created here).
 */
export async function connectDynamo(
  target: DynamoTarget,
  options: ConnectOptions = {},
): Promise<DynamoConnection> {
  const { tableName, endpoint } = target;
  if (endpoint !== undefined) {
    const client = new DynamoDBClient({
      ...common(target),
      endpoint,
      region: target.region ?? "local",
      credentials: target.credentials ?? LOCAL_CREDENTIALS,
    });
    if (options.createTable ?? true) await ensureTableOrClose(client, tableName);
    return { client, tableName, where: `DynamoDB at ${endpoint}, table ${tableName}` };
  }
  const { region } = target;
  // No region given: the SDK's chain, an empty AWS_REGION counting as unset (lib/adapters/aws/region.ts).
  const client = new DynamoDBClient({ ...common(target), region: region || sdkRegion() });
  return { client, tableName, where: `DynamoDB table ${tableName} on AWS${region ? ` (${region})` : ""}` };
}

/** The DynamoDB event store of a target (see connectDynamo); close() releases the client. */
export async function connectDynamoStore(target: DynamoTarget, options: ConnectOptions = {}) {
  const { client, tableName, where } = await connectDynamo(target, options);
  return {
    store: new DynamoEventStore({
      client,
      tableName,
      ...(target.statusShards === undefined ? {} : { statusShards: target.statusShards }),
    }),
    where,
    close: async () => client.destroy(),
  };
}
