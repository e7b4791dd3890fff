import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeleteItemCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoEventStore } from "../../../lib/adapters/dynamodb/dynamoEventStore.ts";
import { BUILT_IN_AGENTS } from "../../../lib/agents/builtIn.ts";
import { agentRegistry } from "../../../lib/agents/registry.ts";
import { Runlog } from "../../../lib/api/runlog.ts";
import { InvalidInputError, NotFoundError } from "../../../lib/core/errors.ts";
import type { RunEvent } from "../../../lib/core/events.ts";
import { LocalOrchestrator } from "../../../lib/runtime/local/orchestrator.ts";
import { modelResolver } from "../../../lib/runtime/models.ts";
import type { StepDeps } from "../../../lib/steps/deps.ts";
import { LogCache } from "../../../lib/steps/logCache.ts";
import { expireRun, retentionMs } from "../../../lib/steps/retention.ts";
import { unstoredWork } from "../../../lib/steps/unstoredWork.ts";
import { script } from "../../support/cli.ts";
import { type InProcessDynalite, startDynalite } from "../../support/dynalite.ts";
import { connectDynamo } from "../../support/store.ts";
import { compressibleText, finishedRun, type Item, partition } from "./support.ts";

const dataDir = mkdtempSync(join(tmpdir(), "runlog-retention-"));
let server: InProcessDynalite;
const DAY = 86_400_000;
const MB = 1024 * 1024;
let client: DynamoDBClient;
let tableName: string;
/** The store's and the steps' clock: tests move it forward past a run's retention. */
let now = Date.now();
const clock = { now: () => new Date(now) };
let store: DynamoEventStore;
let runlog: Runlog;
let steps: StepDeps;
const prefix = `ret${Date.now().toString(36)}`;
const id = (label: string) => `${prefix}-${label}`;

beforeAll(async () => {
  server = await startDynalite();
  ({ client, tableName } = await connectDynamo({ env: server.env() }));
  store = new DynamoEventStore({ client, tableName, clock });
  steps = {
    store,
    logs: new LogCache(store),
    unstored: unstoredWork(),
    agents: agentRegistry({ dataDir }, BUILT_IN_AGENTS),
    models: modelResolver(),
    clock,
    faults: { reached: () => {} },
    retentionMs: 7 * DAY,
  };
  const orchestrator = new LocalOrchestrator({
    deps: () => steps,
    store,
    leaseMs: 30_000,
    retryIntervalMs: 5,
  });
  let forks = 0;
  runlog = new Runlog({
    ...steps,
    orchestrator,
    leaseMs: 30_000,
    ids: { runId: () => id(`fork${++forks}`) },
  });
});
afterAll(async () => {
  client.destroy();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const ttlOf = (item: Item) => (item.expiresAt?.N === undefined ? undefined : Number(item.expiresAt.N));

/** The items of a run and of every blob its events point to. */
async function itemsOf(runId: string): Promise<{ run: Item[]; blobs: Item[] }> {
  const run = await partition(client, tableName, runId);
  const hashes = [...new Set(run.flatMap((item) => (item.blobHash?.S ? [item.blobHash.S] : [])))];
  const blobs = (
    await Promise.all(hashes.map((hash) => partition(client, tableName, `blob#${hash}`)))
  ).flat();
  return { run, blobs };
}

async function write(events: readonly RunEvent[]): Promise<void> {
  const [first, ...rest] = events;
  if (first?.type !== "run_started") throw new Error("a run starts with run_started");
  await store.createRun(first);
  for (const event of rest) await store.append(first.runId, event);
}

/** What DynamoDB's TTL process does, eventually: delete every item whose time has passed. */
async function deleteExpired(items: Item[]): Promise<void> {
  for (const item of items) {
    const ttl = ttlOf(item);
    if (ttl === undefined || ttl * 1000 > now) continue;
    await client.send(
      new DeleteItemCommand({ TableName: tableName, Key: { runId: item.runId!, seq: item.seq! } }),
    );
  }
}

describe("EventStore.expire", () => {
  it("sets the TTL on every item (head, events, blob chunks), hides the run once it passes, and null removes it", async () => {
    const runId = id("store");
    await write(finishedRun(runId, compressibleText(MB, runId) + randomBytes(MB).toString("base64")));
    const at = new Date(Math.ceil((now + DAY) / 1000) * 1000);
    await store.expire(runId, at);
    await store.expire(runId, at); // a repeat after a crash changes nothing
    const { run, blobs } = await itemsOf(runId);
    expect(run).toHaveLength(6);
    expect(blobs.length).toBeGreaterThan(2);
    for (const item of [...run, ...blobs]) expect(ttlOf(item)).toBe(at.getTime() / 1000);

    expect(await store.read(runId)).toHaveLength(5);
    expect(await store.getHead(runId)).toMatchObject({ runId });
    now += 2 * DAY;
    try {
      expect(await store.read(runId)).toEqual([]);
      expect(await store.read(runId, 3)).toEqual([]);
      expect(await store.getHead(runId)).toBeUndefined();
      expect((await store.listRuns({ limit: 1000 })).runs.map((r) => r.runId)).not.toContain(runId);
    } finally {
      now -= 2 * DAY;
    }

    await store.expire(runId, null);
    const kept = await itemsOf(runId);
    for (const item of [...kept.run, ...kept.blobs]) expect(ttlOf(item)).toBeUndefined();
  });

  it("leaves a run that does not exist alone", async () => {
    await store.expire(id("nobody"), new Date(now + DAY));
    expect((await itemsOf(id("nobody"))).run).toEqual([]);
  });
});

describe("retention through the library API", () => {
  const DONE = { text: "Done", stop: "stop" };
  const EMAIL = { name: "send_email", arguments: { to: "ana@example.com", subject: "Lunch" } };

  it("a completed run gets a TTL on every item; it reads whole before and as not found after", async () => {
    const runId = id("completed");
    const model = script(dataDir, "completed", [DONE]);
    expect(await runlog.start({ agent: "demo", input: "hi", model, runId })).toMatchObject({
      status: "completed",
    });
    const expected = Math.ceil((now + 7 * DAY) / 1000);
    const { run } = await itemsOf(runId);
    for (const item of run) expect(ttlOf(item)).toBe(expected);
    expect(await runlog.outcome(runId)).toMatchObject({ status: "completed", output: "Done" });
    expect((await runlog.list({ limit: 1000 })).runs.map((r) => r.runId)).toContain(runId);

    now += 8 * DAY;
    try {
      await expect(runlog.events(runId)).rejects.toBeInstanceOf(NotFoundError);
      await expect(runlog.outcome(runId)).rejects.toBeInstanceOf(NotFoundError);
      await expect(runlog.resumePoint(runId)).rejects.toBeInstanceOf(NotFoundError);
      expect((await runlog.list({ limit: 1000 })).runs.map((r) => r.runId)).not.toContain(runId);
    } finally {
      now -= 8 * DAY;
    }
  });

  // In the process that held the old run's log too: a run's first event starts its cached log anew.
  it("a run removed by retention starts again under its id (as a repeated Idempotency-Key does): a new run, executed", async () => {
    const runId = id("again");
    const model = script(dataDir, "again", [DONE, DONE]);
    await runlog.start({ agent: "demo", input: "hi", model, runId });
    const old = await runlog.events(runId);
    now += 8 * DAY;
    try {
      // The same request again, after retention removed the run and before TTL deleted anything.
      expect(await runlog.start({ agent: "demo", input: "hi", model, runId })).toMatchObject({
        created: true,
        status: "completed",
      });
      const events = await runlog.events(runId);
      expect(events.map((e) => e.type)).toEqual(old.map((e) => e.type));
      expect(events[0]?.at).not.toBe(old[0]?.at);
      expect(events.every((e) => new Date(e.at).getTime() >= now)).toBe(true);
    } finally {
      now -= 8 * DAY;
    }
  });

  it("a paused run gets no TTL, and a message to a completed run clears it", async () => {
    const runId = id("send");
    const model = script(dataDir, "send", [DONE, { toolCalls: [EMAIL] }]);
    await runlog.start({ agent: "demo", input: "hi", model, runId });
    expect((await itemsOf(runId)).run.every((item) => ttlOf(item) !== undefined)).toBe(true);

    expect(await runlog.send(runId, "now email Ana")).toMatchObject({ status: "paused" });
    const { run } = await itemsOf(runId);
    expect(run.length).toBeGreaterThan(3);
    for (const item of run) expect(ttlOf(item)).toBeUndefined();
  });

  it("a cancelled run expires a retention after its cancel, and a repeated cancel days later does not push that back", async () => {
    const runId = id("cancelled");
    const model = script(dataDir, "cancelled", [{ toolCalls: [EMAIL] }]);
    expect(await runlog.start({ agent: "demo", input: "email Ana", model, runId })).toMatchObject({
      status: "paused",
    });
    const cancelledAt = now;
    expect(await runlog.cancel(runId, { by: "ops" })).toMatchObject({ status: "cancelled" });
    const expected = Math.ceil((cancelledAt + 7 * DAY) / 1000);
    for (const item of (await itemsOf(runId)).run) expect(ttlOf(item)).toBe(expected);
    const head = await store.getHead(runId);

    now += 3 * DAY;
    try {
      expect(await runlog.cancel(runId, { by: "ops" })).toMatchObject({ status: "cancelled" });
      for (const item of (await itemsOf(runId)).run) expect(ttlOf(item)).toBe(expected);
      // Nor does it move the run up a listing: its head is as the first cancel left it.
      expect((await store.getHead(runId))?.updatedAt).toBe(head?.updatedAt);
    } finally {
      now -= 3 * DAY;
    }
  });

  it("a fork keeps the payloads it shares with a parent that expires first", async () => {
    const parentId = id("parent");
    const content = compressibleText(2 * MB, parentId) + randomBytes(1.5 * MB).toString("base64");
    await write(finishedRun(parentId, content));
    await expireRun(steps, parentId, "completed");

    now += DAY;
    let forkId: string;
    try {
      ({ runId: forkId } = await runlog.fork({ runId: parentId }));
      expect(await runlog.outcome(forkId)).toMatchObject({ status: "completed" });
    } finally {
      now -= DAY;
    }
    const parent = await itemsOf(parentId);
    const fork = await itemsOf(forkId);
    const parentTtl = ttlOf(parent.run[0]!)!;
    const forkTtl = ttlOf(fork.run[0]!)!;
    expect(forkTtl).toBeGreaterThan(parentTtl);
    // The shared blob lives as long as its longest-lived referrer.
    expect(fork.blobs.length).toBeGreaterThan(0);
    for (const item of fork.blobs) expect(ttlOf(item)).toBe(forkTtl);

    now += 7 * DAY + DAY / 2; // past the parent's retention, not the fork's
    try {
      await deleteExpired([...parent.run, ...parent.blobs]);
      await expect(runlog.events(parentId)).rejects.toBeInstanceOf(NotFoundError);
      const events = await runlog.events(forkId);
      expect(events.find((e) => e.type === "tool_result")).toMatchObject({ content });
    } finally {
      now -= 7 * DAY + DAY / 2;
    }
  });

  it("a blob shared with a run that is kept never gets a TTL", async () => {
    const a = id("kept-a");
    const b = id("kept-b");
    const content = randomBytes(MB).toString("base64");
    const at = new Date(now);
    await write(finishedRun(a, content, at));
    await write(finishedRun(b, content, at));
    await store.expire(a, new Date(now + DAY));
    const { blobs } = await itemsOf(a);
    expect(blobs.length).toBeGreaterThan(0);
    for (const item of blobs) expect(ttlOf(item)).toBeUndefined();
  });
});

describe("the retention setting", () => {
  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, 36_501, 1e8, "30"])(
    "%j days is bad input naming the option",
    (value) => {
      expect(() => retentionMs(value as number)).toThrow(InvalidInputError);
      expect(() => retentionMs(value as number)).toThrow(
        /retentionDays must be a positive number of days up to 36500/,
      );
    },
  );

  it("shows a number that JSON cannot write as the number it is", () => {
    expect(() => retentionMs(Number.POSITIVE_INFINITY)).toThrow(/got Infinity$/);
    expect(() => retentionMs(Number.NaN)).toThrow(/got NaN$/);
    expect(() => retentionMs("30" as unknown as number)).toThrow(/got "30"$/);
  });

  it("takes days, and nothing for forever", () => {
    expect(retentionMs(30)).toBe(30 * DAY);
    expect(retentionMs(0.5)).toBe(DAY / 2);
    expect(retentionMs(36_500)).toBe(36_500 * DAY);
    expect(retentionMs(undefined)).toBeUndefined();
  });

  it("starts the clock only in final statuses", async () => {
    const runId = id("statuses");
    await write(finishedRun(runId, "sunny"));
    for (const status of ["paused", "interrupted", "running", "malformed", "empty"] as const) {
      expect(await expireRun(steps, runId, status)).toBe(false);
    }
    expect((await itemsOf(runId)).run.every((item) => ttlOf(item) === undefined)).toBe(true);
  });
});
