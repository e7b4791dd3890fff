import { DynamoDBClient, type DynamoDBClientConfig } from "@aws-sdk/client-dynamodb";
import { InvalidInputError } from "../../core/errors.ts";
import { AWS_REQUEST } from "../../workflow/timeouts.ts";
import { awsClientConfig } from "../aws/clientConfig.ts";
import { DynamoEventStore } from "./dynamoEventStore.ts";
import { DEFAULT_TABLE_NAME, ensureTable } from "./table.ts";

export interface ConnectOptions {
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Give up on one HTTP request after this long (then the SDK retries, up to 3 attempts). @default 15000 (AWS_REQUEST.outsideAwsRequestMs) */
  requestTimeoutMs?: number;
}

export interface DynamoConnection {
  client: DynamoDBClient;
  tableName: string;
  /** One line saying where events are stored. */
  where: string;
}

const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };

/** Reached from this machine, not from inside AWS: the longer request timeout unless told otherwise. */
const common = (options: ConnectOptions): DynamoDBClientConfig =>
  awsClientConfig(options.requestTimeoutMs ?? AWS_REQUEST.outsideAwsRequestMs);

function envCredentials(env: NodeJS.ProcessEnv) {
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = env;
  if (!accessKeyId || !secretAccessKey) return LOCAL_CREDENTIALS;
  return env.AWS_SESSION_TOKEN
    ? { accessKeyId, secretAccessKey, sessionToken: env.AWS_SESSION_TOKEN }
    : { accessKeyId, secretAccessKey };
}

async function ensureTableOrClose(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await ensureTable(client, tableName);
  } catch (error) {
    client.destroy();
    throw error;
  }
}

/**
 * A DynamoDB client on the table this environment points at:
 * `RUNLOG_DYNAMODB_ENDPOINT` (any DynamoDB-compatible server, table created if
 * missing), else `RUNLOG_TABLE` on AWS (deployed by cdk/, not created here).
 */
export async function connectDynamo(options: ConnectOptions = {}): Promise<DynamoConnection> {
  const env = options.env ?? process.env;
  const tableName = env.RUNLOG_TABLE || DEFAULT_TABLE_NAME;
  if (env.RUNLOG_DYNAMODB_ENDPOINT) {
    const endpoint = env.RUNLOG_DYNAMODB_ENDPOINT;
    const client = new DynamoDBClient({
      ...common(options),
      endpoint,
      region: env.AWS_REGION || "local",
      credentials: envCredentials(env),
    });
    await ensureTableOrClose(client, tableName);
    return { client, tableName, where: `DynamoDB at ${endpoint}, table ${tableName}` };
  }
  if (env.RUNLOG_TABLE) {
    const region = env.AWS_REGION || env.AWS_DEFAULT_REGION;
    const client = new DynamoDBClient({ ...common(options), ...(region ? { region } : {}) });
    return { client, tableName, where: `DynamoDB table ${tableName} on AWS${region ? ` (${region})` : ""}` };
  }
  throw new InvalidInputError("connect to DynamoDB: set RUNLOG_DYNAMODB_ENDPOINT or RUNLOG_TABLE");
}

/** The DynamoDB event store this environment points at (see connectDynamo); close() releases the client. */
export async function connectDynamoStore(options: ConnectOptions = {}) {
  const { client, tableName, where } = await connectDynamo(options);
  return {
    store: new DynamoEventStore({ client, tableName }),
    where,
    close: async () => client.destroy(),
  };
}
