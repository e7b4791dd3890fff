import { CreateTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lifecycleHandler } from "../../functions/publishLifecycle.ts";
import { DynamoEventStore } from "../../lib/adapters/dynamodb/dynamoEventStore.ts";
import { tableDefinition } from "../../lib/adapters/dynamodb/table.ts";
import { BUILT_IN_AGENTS } from "../../lib/agents/builtIn.ts";
import { ConflictError } from "../../lib/core/errors.ts";
import type { LifecycleEvent } from "../../lib/core/lifecycle.ts";
import type { LifecycleBus } from "../../lib/ports/lifecycleBus.ts";
import { createTestRunlog } from "../../lib/testing/index.ts";
import { type DynamoDbLocal, startDynamoDbLocal } from "../support/dynamodbLocal.ts";
import { connectStore } from "../support/store.ts";
import { readStream, type StreamRecord } from "./support/dynamodbStreams.ts";

/**
 * The lifecycle publisher on a real stream: runs' logs written to a table of DynamoDB Local (with
 * its stream on), the stream read as Lambda reads it, and the real handler
 * (functions/publishLifecycle.ts) fed its records in batches with Lambda's checkpoint semantics: a
 * batch that answers a failed item is sent again from that item, one that throws is sent again
 * whole. The bus dies part way through batches, again and again. Every event the logs imply is
 * published at least once, in seq order per run, with its stable id, and none for a write that lost.
 */
let dynamo: DynamoDbLocal;
let store: DynamoEventStore;
let records: StreamRecord[];
let expected: LifecycleEvent[];
const TABLE = "lifecycle-stream";
const EMAIL = { name: "send_email", arguments: { to: "a@example.com", subject: "Hi" } };
const WEATHER = { name: "get_weather", arguments: { city: "Lisbon" } };
const SCRIPTS: Record<string, unknown[]> = {
  "s-done": [{ text: "Hello." }],
  "s-tools": [{ toolCalls: [WEATHER] }, { text: "Sunny." }],
  "s-paused": [{ toolCalls: [EMAIL] }, { text: "Sent." }],
  "s-refused": [{ text: "No.", stop: "refusal" }],
};

beforeAll(async () => {
  dynamo = await startDynamoDbLocal();
  const client = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: "local",
    credentials: { accessKeyId: "local", secretAccessKey: "x" },
  });
  const created = await client.send(
    new CreateTableCommand({
      ...tableDefinition(TABLE),
      StreamSpecification: { StreamEnabled: true, StreamViewType: "KEYS_ONLY" },
    }),
  );
  store = new DynamoEventStore({ client, tableName: TABLE });
  expected = [];
  // Real runs (the local runtime, scripted models); their logs copied into the table as a step writes them.
  for (const [runId, script] of Object.entries(SCRIPTS)) {
    const local = await createTestRunlog({
      agents: BUILT_IN_AGENTS,
      script: script as never,
      onLifecycle: (event) => {
        expected.push(event);
      },
    });
    await local.runlog.start({ agent: "demo", input: "Go", runId, metadata: { request: runId } });
    const sqlite = await connectStore({ dataDir: local.dataDir, env: {} });
    const [first, ...rest] = await sqlite.store.read(runId, 0);
    await sqlite.close();
    await local.close();
    if (first?.type !== "run_started") throw new Error(`${runId} has no run_started`);
    expect((await store.createRun(first)).created).toBe(true);
    for (const event of rest) await store.append(runId, event);
    // A writer that lost the race for seq 2: its write never commits, so nothing may come of it.
    const losing = { ...(rest[0] as object), type: "model_response", text: "LOST", stop: "stop" };
    await expect(store.append(runId, losing as never)).rejects.toBeInstanceOf(ConflictError);
  }
  records = await readStream(dynamo.endpoint, created.TableDescription!.LatestStreamArn!);
}, 120_000);
afterAll(() => dynamo?.stop());

type Death = "refuse" | "throw" | "kill";

/**
 * A bus that dies at the entries `deaths` names (counting every entry it is asked to put): PutEvents
 * refusing the entry, PutEvents throwing, or the function killed right after putting it (the
 * invocation never answers: Lambda sends the batch again).
 */
function dyingBus(kind: Death, deaths: ReadonlySet<number>) {
  const published: LifecycleEvent[] = [];
  let tries = 0;
  let died = 0;
  let kill: (() => void) | undefined;
  const bus: LifecycleBus = {
    put: async (events) => {
      for (const [i, event] of events.entries()) {
        if (!deaths.has(++tries)) {
          published.push(event);
          continue;
        }
        died++;
        if (kind === "refuse") return { published: i, error: "throttled" };
        if (kind === "throw") throw new Error("PutEvents failed");
        published.push(event);
        kill?.();
        return new Promise<never>(() => {});
      }
      return { published: events.length };
    },
  };
  return {
    bus,
    published,
    died: () => died,
    /** Resolves when the function is killed (the invocation under way is abandoned). */
    killed: () =>
      new Promise<void>((resolve) => {
        kill = resolve;
      }),
  };
}

type Handler = ReturnType<typeof lifecycleHandler>;
type BatchAnswer = { batchItemFailures: { itemIdentifier: string }[] };

/** Lambda's event source mapping: batches in stream order, a failed item's batch sent again from it, a thrown or killed one whole. */
async function deliver(handler: Handler, batchSize: number, killed: () => Promise<void>): Promise<number> {
  let at = 0;
  let invocations = 0;
  while (at < records.length) {
    invocations++;
    if (invocations > 500) throw new Error("the publisher never got past a batch");
    const batch = records.slice(at, at + batchSize);
    const answer = await Promise.race([
      (handler({ Records: batch }) as Promise<BatchAnswer>).catch(() => "threw" as const),
      killed().then(() => "killed" as const),
    ]);
    if (answer === "threw" || answer === "killed") continue;
    const failed = answer.batchItemFailures[0]?.itemIdentifier;
    at =
      failed === undefined
        ? at + batch.length
        : records.findIndex((r) => r.dynamodb.SequenceNumber === failed);
  }
  return invocations;
}

function byRun(events: readonly LifecycleEvent[]): Record<string, LifecycleEvent[]> {
  const runs: Record<string, LifecycleEvent[]> = {};
  for (const event of events) runs[event.runId] = [...(runs[event.runId] ?? []), event];
  return runs;
}

describe("the lifecycle publisher on DynamoDB Local's stream", () => {
  it("the stream holds each committed event once, and not the write that lost", () => {
    const inserts = records.filter(
      (record) => record.eventName === "INSERT" && Number(record.dynamodb.Keys.seq.N) > 0,
    );
    const keys = inserts.map((r) => `${r.dynamodb.Keys.runId.S}/${r.dynamodb.Keys.seq.N}`);
    expect(new Set(keys).size).toBe(keys.length);
    // An event item is written once and never changed: the lost write left no MODIFY either.
    const events = records.filter((record) => Number(record.dynamodb.Keys.seq.N) > 0);
    expect(events.every((record) => record.eventName === "INSERT")).toBe(true);
    expect(expected.map((event) => event.type)).toContain("runlog.RunPaused");
  });

  it.each([
    ["PutEvents refuses entries", "refuse", 4, [3, 4, 8, 13, 21]],
    ["PutEvents throws", "throw", 3, [2, 6, 11, 17]],
    ["the function is killed after putting an entry", "kill", 2, [2, 5, 9, 14, 20, 27]],
    ["the function is killed, one record a batch", "kill", 1, [1, 3, 6, 10]],
  ] as const)(
    "%s: every event at least once, in seq order per run, stable ids, nothing for the lost write",
    async (_, kind, batchSize, at) => {
      const dying = dyingBus(kind, new Set(at));
      const { published } = dying;
      const handler = lifecycleHandler(() => ({ store, bus: dying.bus }));
      const invocations = await deliver(handler, batchSize, dying.killed);
      expect(dying.died()).toBeGreaterThan(0);
      expect(invocations).toBeGreaterThan(Math.ceil(records.length / batchSize));
      if (kind !== "refuse") expect(published.length).toBeGreaterThan(expected.length);
      const firsts = published.filter((event, i) => published.findIndex((e) => e.id === event.id) === i);
      expect(firsts).toEqual(expect.arrayContaining(expected));
      expect(firsts).toHaveLength(expected.length);
      for (const [runId, events] of Object.entries(byRun(published))) {
        const seqs = events.map((event) => event.seq);
        // In order per run: a repeat starts again from an earlier seq only after a failure, never skips one.
        const firstSeqs = [...new Set(seqs)];
        expect(firstSeqs, runId).toEqual([...firstSeqs].sort((a, b) => a - b));
        expect(events.every((event) => event.id === `${runId}/${event.seq}`)).toBe(true);
      }
      expect(published.some((event) => event.type === "runlog.RunCompleted" && event.output === "LOST")).toBe(
        false,
      );
      expect(byRun(firsts)).toEqual(byRun(expected));
    },
  );
});
