import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoEventStore } from "../../lib/adapters/dynamodb/dynamoEventStore.ts";
import { SqliteEventStore } from "../../lib/adapters/sqlite/sqliteEventStore.ts";
import type { RunStarted } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import { type InProcessDynalite, startDynalite } from "../support/dynalite.ts";
import { connectStore } from "../support/store.ts";

const dataDir = mkdtempSync(join(tmpdir(), "runlog-store-"));
let server: InProcessDynalite;
beforeAll(async () => {
  server = await startDynalite();
});
afterAll(async () => {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const first = (runId: string) =>
  stamp(
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "hi" },
    1,
    new Date(),
  ) as RunStarted;

describe("connectStore", () => {
  it("by default opens the SQLite file in the data dir, in this process, and says where it is", async () => {
    const { store, where, close } = await connectStore({ dataDir, env: {} });
    try {
      expect(store).toBeInstanceOf(SqliteEventStore);
      expect(where).toBe(`SQLite, ${join(dataDir, "runlog.db")}`);
      const event = first("default-1");
      await store.createRun(event);
      expect(await store.read("default-1")).toEqual([event]);
    } finally {
      await close();
    }
    // One file (and SQLite's own WAL companions), no server files, no other process.
    expect(readdirSync(dataDir).filter((name) => !name.startsWith("runlog.db"))).toEqual([]);
  });

  it("with RUNLOG_DYNAMODB_ENDPOINT uses the DynamoDB adapter there and leaves the data dir alone", async () => {
    const elsewhere = join(dataDir, "never-created");
    const { store, where, close } = await connectStore({ dataDir: elsewhere, env: server.env() });
    try {
      expect(store).toBeInstanceOf(DynamoEventStore);
      expect(where).toBe(`DynamoDB at ${server.endpoint}, table runlog`);
      await store.createRun(first("dynamo-1"));
      expect((await store.read("dynamo-1")).map((e) => e.seq)).toEqual([1]);
    } finally {
      await close();
    }
    expect(existsSync(elsewhere)).toBe(false);
  });

  it("with only RUNLOG_TABLE targets AWS", async () => {
    const { store, where, close } = await connectStore({
      env: { RUNLOG_TABLE: "prod-runs", AWS_REGION: "eu-west-1" },
    });
    expect(store).toBeInstanceOf(DynamoEventStore);
    expect(where).toBe("DynamoDB table prod-runs on AWS (eu-west-1)");
    await close();
  });

  it("refuses a RUNLOG_DURABILITY it does not know, naming the variable, before opening anything", async () => {
    const dir = join(dataDir, "durability");
    await expect(connectStore({ dataDir: dir, env: { RUNLOG_DURABILITY: "fast" } })).rejects.toThrow(
      /RUNLOG_DURABILITY="fast" is not allowed; expected full or normal/,
    );
    expect(existsSync(dir)).toBe(false);
    const { close } = await connectStore({ dataDir: dir, env: { RUNLOG_DURABILITY: "normal" } });
    await close();
  });
});
