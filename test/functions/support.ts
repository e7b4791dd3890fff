import { rmSync } from "node:fs";
import { afterAll, beforeAll } from "vitest";
import { DynamoEventStore } from "../../lib/adapters/dynamodb/dynamoEventStore.ts";
import { executionName } from "../../lib/adapters/stepfunctions/index.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";
import { NAMES } from "../../lib/runtime/config.ts";
import { tempDataDir } from "../support/cli.ts";
import { type InProcessDynalite, startDynalite } from "../support/dynalite.ts";
import { useCallRecording } from "../support/iam/recorder.ts";
import { connectDynamo } from "../support/store.ts";

export const STATE_MACHINE_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:RunMachine";
export const SECRET_ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:runlog/model-key-AbCdEf";

/**
 * The environment a deployed function sees, with DynamoDB served by the
 * dynalite in this process (through the SDK's own AWS_ENDPOINT_URL_DYNAMODB, so the
 * functions' composition runs unchanged), recording the AWS calls each function makes (see
 * ./handlers.ts). Call at the top of a test file.
 */
export function useFunctionEnvironment(
  label: string,
  extra: Record<string, string> = {},
): { store: () => EventStore; storeAt: (clock: { now(): Date }) => EventStore } {
  const dataDir = tempDataDir(label);
  let server: InProcessDynalite | undefined;
  let store: EventStore | undefined;
  let storeAt: ((clock: { now(): Date }) => EventStore) | undefined;
  let destroy = () => {};
  useCallRecording(label);
  beforeAll(async () => {
    server = await startDynalite();
    const endpoint = server.endpoint;
    const { client, tableName } = await connectDynamo({ env: server.env() });
    store = new DynamoEventStore({ client, tableName });
    storeAt = (clock) => new DynamoEventStore({ client, tableName, clock });
    destroy = () => client.destroy();
    Object.assign(process.env, {
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "local",
      AWS_SECRET_ACCESS_KEY: "local",
      AWS_ENDPOINT_URL_DYNAMODB: endpoint,
      [NAMES.tableName]: tableName,
      [NAMES.leaseMs]: String(24 * 3_600_000),
      [NAMES.dataDir]: dataDir,
      // Quiet: Powertools writes logs and EMF lines to stdout (test/functions/observability.test.ts reads them).
      POWERTOOLS_LOG_LEVEL: "SILENT",
      POWERTOOLS_METRICS_DISABLED: "true",
      ...extra,
    });
  });
  afterAll(async () => {
    destroy();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    store: () => {
      if (!store) throw new Error("the function environment is not set up yet");
      return store;
    },
    /** The same table through a store with its own clock: to leave runs that look long idle. */
    storeAt: (clock) => {
      if (!storeAt) throw new Error("the function environment is not set up yet");
      return storeAt(clock);
    },
  };
}

/** An EventBridge event as a rule delivers it. */
export function busEvent(detailType: string, detail: unknown, id = "11111111-2222-3333-4444-555555555555") {
  return {
    version: "0",
    id,
    "detail-type": detailType,
    source: detailType.startsWith("runlog.") ? "runlog" : "aws.states",
    account: "123456789012",
    time: new Date().toISOString(),
    region: "us-east-1",
    resources: [],
    detail,
  };
}

/** What a handler threw, as Step Functions would see it: its name and message. */
export async function failure(promise: Promise<unknown>): Promise<{ name: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return { name: (error as Error).name, message: (error as Error).message };
  }
  throw new Error("expected the handler to fail");
}

/**
 * The execution name runlog gives a run's generation on AWS: its run id, its creation time (the
 * head's `createdAt`) and the generation (lib/adapters/stepfunctions/executionName.ts).
 */
export async function nameOf(
  store: { getHead(runId: string): Promise<{ createdAt: string } | undefined> },
  runId: string,
  generation: number,
): Promise<string> {
  const head = await store.getHead(runId);
  if (!head) throw new Error(`no run ${runId}`);
  return executionName(runId, generation, head.createdAt);
}
