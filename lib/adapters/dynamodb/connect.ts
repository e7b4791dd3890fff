import { relative, resolve } from "node:path";
import { DynamoDBClient, type DynamoDBClientConfig } from "@aws-sdk/client-dynamodb";
import type { EventStore } from "../../ports/eventStore.ts";
import { ensureEmbeddedServer } from "../embedded/ensureServer.ts";
import { EmbeddedEndpoint } from "../embedded/reconnect.ts";
import { serverFiles } from "../embedded/serverFiles.ts";
import { DynamoEventStore } from "./dynamoEventStore.ts";
import { DEFAULT_TABLE_NAME, ensureTable } from "./table.ts";

export interface ConnectOptions {
  /** Where the embedded server keeps its data. @default ".runlog" */
  dataDir?: string;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Give up on one HTTP request after this long (then the SDK retries, up to 3 attempts). @default 15000 */
  requestTimeoutMs?: number;
}

export interface DynamoConnection {
  client: DynamoDBClient;
  tableName: string;
  /** One line saying where events are stored. */
  where: string;
}

const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };

/**
 * The embedded server (dynalite, on loopback) checks that a request is signed in the SigV4 shape,
 * not the signature itself: a fixed header spares every request SigV4's hashing of its body.
 */
const EMBEDDED_SIGNER = {
  sign: async <R extends { headers: Record<string, string> }>(request: R): Promise<R> => {
    request.headers.authorization =
      "AWS4-HMAC-SHA256 Credential=local/20200101/local/dynamodb/aws4_request, SignedHeaders=host, Signature=0";
    request.headers["x-amz-date"] = "20200101T000000Z";
    return request;
  },
};

/** Few SDK retries (steps and Step Functions retry on top) and a timeout, so a hung endpoint fails as retryable. */
const common = (options: ConnectOptions): DynamoDBClientConfig => ({
  maxAttempts: 3,
  requestHandler: {
    connectionTimeout: 3_000,
    requestTimeout: options.requestTimeoutMs ?? 15_000,
    // Without this the SDK only logs a warning when requestTimeout passes.
    throwOnRequestTimeout: true,
  },
});

const shown = (path: string) => {
  const rel = relative(process.cwd(), path);
  return rel.startsWith("..") || rel === "" ? path : rel;
};

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
 * `RUNLOG_DYNAMODB_ENDPOINT` (any DynamoDB-compatible server), else
 * `RUNLOG_TABLE` on AWS (deployed by cdk/, not created here), else the
 * embedded server shared by every process using `dataDir`.
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
  const dataDir = resolve(options.dataDir ?? ".runlog");
  const ensureOptions = { env };
  const server = new EmbeddedEndpoint(
    dataDir,
    (await ensureEmbeddedServer(dataDir, ensureOptions)).endpoint,
    ensureOptions,
  );
  const client = new DynamoDBClient({
    ...common(options),
    endpoint: server.provide,
    region: "local",
    credentials: LOCAL_CREDENTIALS,
    signer: EMBEDDED_SIGNER,
  });
  server.install(client);
  await ensureTableOrClose(client, tableName);
  const where = `embedded DynamoDB (dynalite) at ${new URL(server.url).host}, data in ${shown(serverFiles(dataDir).db)}`;
  return { client, tableName, where };
}

/** The event store this environment points at (see connectDynamo); close() releases the client, not the server. */
export async function connectStore(
  options: ConnectOptions = {},
): Promise<{ store: EventStore; where: string; close(): Promise<void> }> {
  const { client, tableName, where } = await connectDynamo(options);
  return {
    store: new DynamoEventStore({ client, tableName }),
    where,
    close: async () => client.destroy(),
  };
}
