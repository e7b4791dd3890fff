import { createServer, type Server, type Socket } from "node:net";
import { ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RetryableError } from "../../../lib/core/errors.ts";
import { readConfig } from "../../../lib/runtime/readConfig.ts";
import { dynamoTarget } from "../../../lib/runtime/store.ts";
import { type InProcessDynalite, startDynalite } from "../../support/dynalite.ts";
import { connectDynamo } from "../../support/store.ts";

let server: InProcessDynalite;
beforeAll(async () => {
  server = await startDynalite();
});
afterAll(() => server.stop());

describe("connectDynamo", () => {
  it("with RUNLOG_DYNAMODB_ENDPOINT uses that server and creates RUNLOG_TABLE there", async () => {
    const env = server.env({ RUNLOG_TABLE: "custom-runs" });
    const { client, tableName, where } = await connectDynamo({ env });
    try {
      expect(tableName).toBe("custom-runs");
      expect(where).toBe(`DynamoDB at ${server.endpoint}, table custom-runs`);
      expect((await client.send(new ListTablesCommand({}))).TableNames).toContain("custom-runs");
    } finally {
      client.destroy();
    }
  });

  it("with only RUNLOG_TABLE targets AWS without creating anything", async () => {
    const env = { RUNLOG_TABLE: "prod-runs", AWS_REGION: "eu-west-1" };
    const { client, where } = await connectDynamo({ env });
    expect(where).toBe("DynamoDB table prod-runs on AWS (eu-west-1)");
    client.destroy();
  });

  it("without either variable points at no table: the SQLite file", () => {
    expect(dynamoTarget(readConfig({}))).toBeUndefined();
  });

  it("fails as retryable, not hanging, when the endpoint accepts connections and never answers", async () => {
    const sockets: Socket[] = [];
    const hung: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => hung.listen(0, "127.0.0.1", resolve));
    const port = (hung.address() as { port: number }).port;
    try {
      const env = { RUNLOG_DYNAMODB_ENDPOINT: `http://127.0.0.1:${port}` };
      const failure = connectDynamo({ env, requestTimeoutMs: 200 });
      await expect(failure).rejects.toBeInstanceOf(RetryableError);
      await expect(failure).rejects.toThrow(/table runlog/);
    } finally {
      for (const socket of sockets) socket.destroy();
      hung.close();
    }
  });
});
