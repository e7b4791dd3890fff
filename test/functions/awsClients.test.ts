import { rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { DynamoDBClient, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { ListStateMachinesCommand, SFNClient } from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildDeps } from "../../functions/deps.ts";
import { type AwsClient, observeClients } from "../../lib/runtime/aws/handlerDeps.ts";
import { tempDataDir } from "../support/cli.ts";
import { STATE_MACHINE_ARN } from "./support.ts";

// A server that accepts every connection and never answers: a connection gone bad.
const sockets: Socket[] = [];
const hung: Server = createServer((socket) => sockets.push(socket));
const clients: AwsClient[] = [];
/** The Step Functions clients made by the time buildDeps returned. */
let sfnClientsAtBuild = -1;
const saved = { ...process.env };
const dataDir = tempDataDir("fn-clients");

beforeAll(async () => {
  await new Promise<void>((resolve) => hung.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(hung.address() as { port: number }).port}`;
  // The SDK reads its endpoint, region and credentials from the process's own environment.
  Object.assign(process.env, {
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "local",
    AWS_SECRET_ACCESS_KEY: "local",
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_ENDPOINT_URL_SFN: endpoint,
    POWERTOOLS_LOG_LEVEL: "SILENT",
  });
  const unobserve = observeClients((client) => clients.push(client));
  const isSfn = (client: AwsClient) => client instanceof SFNClient;
  try {
    const deps = await buildDeps({
      ...process.env,
      TABLE_NAME: "runs",
      STATE_MACHINE_ARN,
      RUNLOG_LEASE_MS: "60000",
      RUNLOG_DIR: dataDir,
    });
    sfnClientsAtBuild = clients.filter(isSfn).length;
    // The first call that needs Step Functions makes its client: ask about an execution (the
    // request hangs on the server above until afterAll ends it) and wait until the client is made.
    const { orchestrator } = deps.control();
    void orchestrator
      .executionOf(orchestrator.leaseOwnerFor({ runId: "r1", generation: 1 }))
      .catch(() => undefined);
    await vi.waitFor(() => expect(clients.filter(isSfn)).toHaveLength(1));
  } finally {
    unobserve();
  }
});

afterAll(() => {
  for (const socket of sockets) socket.destroy();
  hung.close();
  process.env = saved;
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the AWS clients a function builds", () => {
  // A short request timeout for this one request (the SDK's per-request option), so the test needs
  // no 10 s wait; whether a timeout fails the request or only logs a warning is the client's own.
  const quickly = { requestTimeout: 200 };

  it("give up on a DynamoDB request that hangs past its timeout, failing instead of waiting", async () => {
    const dynamodb = clients.find((client) => client instanceof DynamoDBClient);
    if (!dynamodb) throw new Error("buildDeps made no DynamoDB client");
    await expect(dynamodb.send(new ListTablesCommand({}), quickly)).rejects.toMatchObject({
      name: "TimeoutError",
    });
  });

  it("make no Step Functions client until a call needs one (no model or tool call does)", () => {
    expect(sfnClientsAtBuild).toBe(0);
  });

  it("give up on a Step Functions request that hangs past its timeout, failing instead of waiting", async () => {
    const sfn = clients.find((client) => client instanceof SFNClient);
    if (!sfn) throw new Error("buildDeps made no Step Functions client");
    await expect(sfn.send(new ListStateMachinesCommand({}), quickly)).rejects.toMatchObject({
      name: "TimeoutError",
    });
  });
});
