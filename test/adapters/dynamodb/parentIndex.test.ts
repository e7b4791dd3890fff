import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoEventStore } from "../../../lib/adapters/dynamodb/dynamoEventStore.ts";
import { checkTable } from "../../../lib/adapters/dynamodb/table.ts";
import { MissingIndexError } from "../../../lib/core/errors.ts";
import { started } from "../../contract/fixtures.ts";
import { type InProcessDynalite, startDynalite } from "../../support/dynalite.ts";
import { createTableWithoutParentIndex, createTableWithUnshardedStatus } from "../../support/oldTable.ts";
import { connectDynamo } from "../../support/store.ts";

let server: InProcessDynalite;
let client: DynamoDBClient;

beforeAll(async () => {
  server = await startDynalite();
  client = (await connectDynamo({ env: server.env() })).client;
});
afterAll(async () => {
  client.destroy();
  await server.stop();
});

describe("the parent index on a table made before it existed", () => {
  it("is named, with what to do, when forks are listed from a deployed table that lacks it", async () => {
    await createTableWithoutParentIndex(client, "old-deployed");
    await checkTable(client, "old-deployed"); // still usable for everything else
    const store = new DynamoEventStore({ client, tableName: "old-deployed" });
    await store.createRun(started("p"));
    await store.createRun({ ...started("f"), parent: { runId: "p", seq: 1 } });
    expect((await store.listRuns({})).runs.map((head) => head.runId).sort()).toEqual(["f", "p"]);
    const failure = store.listRuns({ parent: "p" });
    await expect(failure).rejects.toBeInstanceOf(MissingIndexError);
    await expect(failure).rejects.toMatchObject({ tableName: "old-deployed", index: "byParent" });
    await expect(failure).rejects.toThrow(
      /table old-deployed has no index byParent \(it was made by an older runlog\); deploy runlog's table/,
    );
  });
});

describe("a table made before the status index was sharded", () => {
  it("is refused up front, naming the index it lacks and where the upgrade is described", async () => {
    await createTableWithUnshardedStatus(client, "old-unsharded");
    await expect(checkTable(client, "old-unsharded")).rejects.toThrow(
      /has no global secondary index byStatusShard \(it has byStatus: an older runlog made it; see "Upgrading a deployed stack"/,
    );
  });

  it("spreads a status's heads over its shards, and lists them as one", async () => {
    await createTableWithoutParentIndex(client, "sharded-spread");
    const store = new DynamoEventStore({ client, tableName: "sharded-spread", statusShards: 4 });
    const ids = Array.from({ length: 24 }, (_, i) => `spread-${i}`);
    for (const runId of ids) await store.createRun(started(runId));
    const { ScanCommand } = await import("@aws-sdk/client-dynamodb");
    const items =
      (await client.send(new ScanCommand({ TableName: "sharded-spread", IndexName: "byStatusShard" })))
        .Items ?? [];
    const shards = new Set(items.map((item) => item.statusShard?.S));
    expect(shards.size).toBe(4);
    const listed = (await store.listRuns({ limit: 1000 })).runs.map((head) => head.runId);
    expect(listed.sort()).toEqual([...ids].sort());
  });
});
