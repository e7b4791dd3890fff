import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeleteItemCommand, type DynamoDBClient, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoEventStore } from "../../../lib/adapters/dynamodb/dynamoEventStore.ts";
import { encodeEventItem, INLINE_MAX_BYTES } from "../../../lib/adapters/dynamodb/payloads.ts";
import { encodeBody } from "../../../lib/adapters/encoding/compression.ts";
import { BUILT_IN_AGENTS } from "../../../lib/agents/builtIn.ts";
import { agentRegistry } from "../../../lib/agents/registry.ts";
import { canonicalJson } from "../../../lib/core/canonicalJson.ts";
import { ConflictError, CorruptEventError, InvalidInputError } from "../../../lib/core/errors.ts";
import type { RunEvent, RunStarted } from "../../../lib/core/events.ts";
import { stamp } from "../../../lib/core/storedEvents.ts";
import { EVENT_PREVIEW_BYTES, MAX_EVENT_BYTES } from "../../../lib/ports/eventStore.ts";
import { LocalOrchestrator } from "../../../lib/runtime/local/orchestrator.ts";
import { modelResolver } from "../../../lib/runtime/models.ts";
import type { StepDeps } from "../../../lib/steps/deps.ts";
import { forkRun } from "../../../lib/steps/fork.ts";
import { LogCache } from "../../../lib/steps/logCache.ts";
import { unstoredWork } from "../../../lib/steps/unstoredWork.ts";
import { type InProcessDynalite, startDynalite } from "../../support/dynalite.ts";
import { connectDynamo } from "../../support/store.ts";
import { compressibleText, countWriteBytes, finishedRun, itemBytes, partition, scanAll } from "./support.ts";

const dataDir = mkdtempSync(join(tmpdir(), "runlog-big-events-"));
let server: InProcessDynalite;
const MB = 1024 * 1024;
let client: DynamoDBClient;
let tableName: string;
let store: DynamoEventStore;
const prefix = `big${Date.now().toString(36)}`;
const id = (label: string) => `${prefix}-${label}`;

beforeAll(async () => {
  server = await startDynalite();
  ({ client, tableName } = await connectDynamo({ env: server.env() }));
  store = new DynamoEventStore({ client, tableName });
});
afterAll(async () => {
  client.destroy();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function write(events: readonly RunEvent[], on = store): Promise<void> {
  const [first, ...rest] = events;
  if (first?.type !== "run_started") throw new Error("a run starts with run_started");
  await on.createRun(first);
  for (const event of rest) await on.append(first.runId, event);
}

/** The stored size of the payload behind seq 4: the blob's chunks, or the inline body. */
async function storedBytes(runId: string): Promise<number> {
  const item = (await partition(client, tableName, runId)).find((i) => i.seq?.N === "4");
  if (!item?.blobHash?.S) return itemBytes(item ?? {});
  const blob = await partition(client, tableName, `blob#${item.blobHash.S}`);
  return blob.reduce((sum, chunk) => sum + (chunk.data?.B?.length ?? 0), 0);
}

const resultOf = (events: RunEvent[]) => events.find((e) => e.type === "tool_result");

describe("events of many megabytes", () => {
  it.each([
    ["a 4 MB compressible", "text4", () => compressibleText(4 * MB, id("text4"))],
    ["a 4 MB random", "random4", () => randomBytes(3 * MB).toString("base64")],
    [
      "a 10 MB mixed",
      "mixed10",
      () => compressibleText(5 * MB, id("mixed10")) + randomBytes(3.75 * MB).toString("base64"),
    ],
  ])("%s tool result round-trips intact, never inflated", async (_, label, make) => {
    const runId = id(label);
    const content = make();
    const events = finishedRun(runId, content);
    await write(events);
    const read = await store.read(runId);
    expect(read).toEqual(events);
    expect(resultOf(read)).toMatchObject({ content });
    const raw = Buffer.byteLength(JSON.stringify(events[3]));
    expect(await storedBytes(runId)).toBeLessThanOrEqual(raw);
  });

  it("no item of the table is over 350 KB, whatever was written", async () => {
    const sizes = (await scanAll(client, tableName)).map(itemBytes);
    expect(sizes.length).toBeGreaterThan(0);
    expect(Math.max(...sizes)).toBeLessThan(350 * 1024);
  });

  it("compresses a compressible payload to a fraction of its size", async () => {
    const runId = id("ratio");
    await write(finishedRun(runId, compressibleText(4 * MB, runId)));
    expect(await storedBytes(runId)).toBeLessThan(MB);
  });

  it("keeps a payload that does not compress as it is, and small bodies as text", async () => {
    const random = randomBytes(64 * 1024);
    expect(await encodeBody(random)).toEqual({ data: random, encoding: "identity" });
    const small = Buffer.from(JSON.stringify({ text: "short" }));
    expect((await encodeBody(small)).encoding).toBe("identity");
    const runId = id("small");
    await write(finishedRun(runId, "sunny"));
    const item = (await partition(client, tableName, runId)).find((i) => i.seq?.N === "4");
    expect(item?.body?.S).toContain('"content":"sunny"');
  });

  it("keeps a medium compressible body inline, compressed", async () => {
    const runId = id("medium");
    const content = compressibleText(200 * 1024, runId);
    await write(finishedRun(runId, content));
    const item = (await partition(client, tableName, runId)).find((i) => i.seq?.N === "4");
    expect(item?.enc?.S).toBe("br");
    expect(item?.body?.B?.length).toBeLessThanOrEqual(INLINE_MAX_BYTES);
    expect(resultOf(await store.read(runId, 3))).toMatchObject({ content });
  });

  it("refuses an event over the sanity bound as bad input naming it, and writes nothing", async () => {
    const runId = id("huge");
    await store.createRun(finishedRun(runId, "")[0] as RunStarted);
    const event = stamp({ type: "user_message", text: "x".repeat(MAX_EVENT_BYTES) }, 2, new Date());
    const error = await store.append(runId, event).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(
      /user_message event at seq 2 is \d+ bytes as stored, over the 67108864/,
    );
    expect(await store.read(runId)).toHaveLength(1);
  });
});

describe("a big event's chunks", () => {
  it("past the first, are not read by a page that only summarizes the event", async () => {
    const runId = id("page-first-chunk");
    const events = finishedRun(runId, randomBytes(MB).toString("base64"));
    await write(events);
    const item = (await partition(client, tableName, runId)).find((i) => i.seq?.N === "4");
    const blob = `blob#${item?.blobHash?.S}`;
    await client.send(
      new DeleteItemCommand({ TableName: tableName, Key: { runId: { S: blob }, seq: { N: "2" } } }),
    );
    await expect(store.read(runId)).rejects.toBeInstanceOf(CorruptEventError);
    const page = await store.readPage(runId, { limit: 10, maxBytes: 64 * 1024 });
    expect(page.entries.map((entry) => ("event" in entry ? entry.event.seq : -entry.summary.seq))).toEqual([
      1, 2, 3, -4, 5,
    ]);
    expect(page.entries[3]).toMatchObject({
      summary: {
        seq: 4,
        type: "tool_result",
        preview: canonicalJson(events[3]!).slice(0, EVENT_PREVIEW_BYTES),
      },
    });
  });

  it("of several summarized events, are read as far as each first chunk in one batch", async () => {
    const runId = id("page-first-chunks");
    const calls = ["a", "b", "c"].map((c) => ({ id: `call_${c}`, name: "get_weather", arguments: "{}" }));
    const at = new Date();
    const events = [
      { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "fetch them" },
      { type: "model_response", text: "", toolCalls: calls, stop: "tool_calls" },
      ...calls.map((call) => ({ type: "tool_started", callId: call.id, name: call.name })),
      ...calls.map((call) => ({
        type: "tool_result",
        callId: call.id,
        name: call.name,
        content: randomBytes(MB).toString("base64"),
        isError: false,
      })),
    ].map((event, i) => stamp(event as never, i + 1, at));
    await write(events);
    let batchReads = 0;
    const counting = new Proxy(client, {
      get: (target, property, receiver) =>
        property === "send"
          ? (command: { constructor: { name: string } }) => {
              if (command.constructor.name === "BatchGetItemCommand") batchReads++;
              return target.send(command as never);
            }
          : Reflect.get(target, property, receiver),
    });
    const page = await new DynamoEventStore({ client: counting, tableName }).readPage(runId, {
      limit: 10,
      maxBytes: 64 * 1024,
    });
    expect(page.entries.map((entry) => ("event" in entry ? entry.event.seq : -entry.summary.seq))).toEqual([
      1, 2, 3, 4, 5, -6, -7, -8,
    ]);
    expect(batchReads).toBe(1);
  });

  it("missing: read fails with CorruptEventError naming the run and seq", async () => {
    const runId = id("missing-chunk");
    await write(finishedRun(runId, randomBytes(MB).toString("base64")));
    const item = (await partition(client, tableName, runId)).find((i) => i.seq?.N === "4");
    const blob = `blob#${item?.blobHash?.S}`;
    await client.send(
      new DeleteItemCommand({ TableName: tableName, Key: { runId: { S: blob }, seq: { N: "2" } } }),
    );
    const error = await store.read(runId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptEventError);
    expect(error).toMatchObject({ runId, seq: 4 });
    expect((error as Error).message).toMatch(/chunk 2 of \d+ of blob .* is missing/);
    expect((await store.read(runId, 4)).map((e) => e.seq)).toEqual([5]);
  });

  it("corrupt (not matching their hash): CorruptEventError naming the seq, never wrong data", async () => {
    const runId = id("corrupt-chunk");
    await write(finishedRun(runId, randomBytes(MB).toString("base64")));
    const item = (await partition(client, tableName, runId)).find((i) => i.seq?.N === "4");
    const [chunk] = (await partition(client, tableName, `blob#${item?.blobHash?.S}`)).filter(
      (i) => i.seq?.N === "1",
    );
    const data = Buffer.from(chunk?.data?.B ?? []);
    data[100] = (data[100] ?? 0) ^ 0xff;
    await client.send(new PutItemCommand({ TableName: tableName, Item: { ...chunk, data: { B: data } } }));
    const error = await store.read(runId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptEventError);
    expect(error).toMatchObject({ runId, seq: 4 });
    expect((error as Error).message).toMatch(/does not match its hash/);
  });

  it("written by a crash before its event: the log shows nothing at that seq and the seq stays free", async () => {
    const runId = id("orphan");
    const events = finishedRun(runId, randomBytes(MB).toString("base64"));
    await write(events.slice(0, 3));
    // Chunks written, then the process died before the event's put.
    await encodeEventItem({ client, tableName, now: () => new Date(), statusShards: 8 }, runId, events[3]!);
    expect((await store.read(runId)).map((e) => e.seq)).toEqual([1, 2, 3]);
    await store.append(runId, events[3]!);
    expect(await store.read(runId, 3)).toEqual([events[3]]);
  });

  it("of the loser of a seq race never damage the winner's event", async () => {
    const runId = id("race");
    const events = finishedRun(runId, "");
    await write(events.slice(0, 3));
    const candidates = Array.from({ length: 4 }, (_, i) =>
      stamp(
        {
          type: "tool_result",
          callId: "call_0_0",
          name: "get_weather",
          content: `${i} ${randomBytes(MB).toString("base64")}`,
          isError: false,
        },
        4,
        new Date(),
      ),
    );
    const results = await Promise.allSettled(candidates.map((event) => store.append(runId, event)));
    const won = results.flatMap((r, i) => (r.status === "fulfilled" ? [i] : []));
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(ConflictError);
    expect(await store.read(runId, 3)).toEqual([candidates[won[0]!]]);
  });
});

describe("a fork of a run with a 4 MB event", () => {
  it("shares the payload instead of writing it again", async () => {
    const { client: counted } = await connectDynamo({ env: server.env() });
    const puts = countWriteBytes(counted);
    try {
      const countedStore = new DynamoEventStore({ client: counted, tableName });
      const runId = id("parent");
      const events = finishedRun(
        runId,
        compressibleText(2 * MB, runId) + randomBytes(1.5 * MB).toString("base64"),
      );
      await write(events, countedStore);
      const parentBytes = puts.bytes;
      expect(parentBytes).toBeGreaterThan(MB);

      const steps: StepDeps = {
        store: countedStore,
        logs: new LogCache(countedStore),
        unstored: unstoredWork(),
        agents: agentRegistry({ dataDir }, BUILT_IN_AGENTS),
        models: modelResolver(),
        clock: { now: () => new Date() },
        faults: { reached: () => {} },
      };
      const orchestrator = new LocalOrchestrator({ deps: () => steps, store: countedStore, leaseMs: 30_000 });
      const deps = { ...steps, orchestrator, leaseMs: 30_000, ids: { runId: () => id("fork") } };
      const before = puts.bytes;
      const { forkId } = await forkRun(deps, { runId });
      const forkBytes = puts.bytes - before;
      // 1.6 KB measured: the fork's own events and one update of the blob's manifest, no payload.
      expect(forkBytes).toBeLessThan(16 * 1024);
      const forked = await store.read(forkId);
      expect(forked.slice(1)).toEqual(events.slice(1));
      expect(forked[0]).toMatchObject({ type: "run_started", runId: forkId, parent: { runId, seq: 5 } });
    } finally {
      counted.destroy();
    }
  });
});
