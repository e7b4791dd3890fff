import { rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, describe, expect, it } from "vitest";
import { connectDynamo, connectStore } from "../../../lib/adapters/dynamodb/connect.ts";
import { ensureEmbeddedServer, stopEmbeddedServer } from "../../../lib/adapters/embedded/index.ts";
import { RetryableError } from "../../../lib/core/errors.ts";
import { type RunStarted, stamp } from "../../../lib/core/events.ts";
import { embeddedEnv, tempDataDir } from "../embedded/helpers.ts";

const dataDir = tempDataDir("connect");

afterAll(async () => {
  await stopEmbeddedServer(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});

describe("connectStore", () => {
  it("by default starts the embedded server and says where the data lives", async () => {
    const { store, where, close } = await connectStore({ dataDir, env: embeddedEnv() });
    try {
      expect(where).toMatch(/^embedded DynamoDB \(dynalite\) at 127\.0\.0\.1:\d+, data in .*db$/);
      const first = stamp(
        { type: "run_started", runId: "connect-1", agent: "demo", model: "scripted:demo", input: "hi" },
        1,
        new Date(),
      ) as RunStarted;
      await store.createRun(first);
      expect(await store.read("connect-1")).toEqual([first]);
    } finally {
      await close();
    }
  });

  it("with RUNLOG_DYNAMODB_ENDPOINT uses that server and creates RUNLOG_TABLE there", async () => {
    const { endpoint } = await ensureEmbeddedServer(dataDir, { env: embeddedEnv() });
    const env = embeddedEnv({ RUNLOG_DYNAMODB_ENDPOINT: endpoint, RUNLOG_TABLE: "custom-runs" });
    const { client, tableName, where } = await connectDynamo({ dataDir, env });
    try {
      expect(tableName).toBe("custom-runs");
      expect(where).toBe(`DynamoDB at ${endpoint}, table custom-runs`);
      expect((await client.send(new ListTablesCommand({}))).TableNames).toContain("custom-runs");
    } finally {
      client.destroy();
    }
  });

  it("with only RUNLOG_TABLE targets AWS without creating anything", async () => {
    const env = { RUNLOG_TABLE: "prod-runs", AWS_REGION: "eu-west-1" };
    const { where, close } = await connectStore({ dataDir: "/nonexistent/never-created", env });
    expect(where).toBe("DynamoDB table prod-runs on AWS (eu-west-1)");
    await close();
  });

  it("fails as retryable, not hanging, when the endpoint accepts connections and never answers", async () => {
    const sockets: Socket[] = [];
    const hung: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => hung.listen(0, "127.0.0.1", resolve));
    const port = (hung.address() as { port: number }).port;
    try {
      const env = { RUNLOG_DYNAMODB_ENDPOINT: `http://127.0.0.1:${port}` };
      const failure = connectStore({ dataDir, env, requestTimeoutMs: 200 });
      await expect(failure).rejects.toBeInstanceOf(RetryableError);
      await expect(failure).rejects.toThrow(/table runlog/);
    } finally {
      for (const socket of sockets) socket.destroy();
      hung.close();
    }
  });
});
