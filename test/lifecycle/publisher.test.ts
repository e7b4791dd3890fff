import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from "@aws-sdk/client-eventbridge";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lifecycleHandler } from "../../functions/publishLifecycle.ts";
import { EventBridgeLifecycleBus } from "../../lib/adapters/eventbridge/lifecycleBus.ts";
import { BUILT_IN_AGENTS } from "../../lib/agents/builtIn.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { type LifecycleEvent, LifecycleEventSchema } from "../../lib/core/lifecycle.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";
import { createTestRunlog, type TestRunlog } from "../../lib/testing/index.ts";
import { connectStore } from "../support/store.ts";

/**
 * The AWS publisher (functions/publishLifecycle.ts) fed DynamoDB stream records as Lambda hands
 * them over, reading the events from a real store and putting entries through the real
 * EventBridge adapter (its client mocked: no local EventBridge). It publishes what onLifecycle
 * hears for the same log, in order, and a batch that fails part way goes on from the right record.
 */
const bus = mockClient(EventBridgeClient);
let local: TestRunlog;
let heard: LifecycleEvent[];
let store: EventStore;
const metadata = { ticket: "T-7" };

beforeEach(async () => {
  bus.reset();
  heard = [];
  local = await createTestRunlog({
    agents: BUILT_IN_AGENTS,
    script: [
      { toolCalls: [{ name: "send_email", arguments: { to: "a@example.com", subject: "Hi" } }] },
      { text: "Sent." },
    ],
    onLifecycle: (event) => {
      heard.push(event);
    },
  });
  // The same store the runlog writes, opened as the publisher's (a second connection to the file).
  store = (await connectStore({ dataDir: local.dataDir, env: {} })).store;
});
afterEach(async () => {
  await local.close();
});

let sequence = 100;
/** A DynamoDB stream record exactly as Lambda delivers one (NEW_AND_OLD or KEYS_ONLY: the publisher reads only Keys). */
function record(runId: string, seq: number, eventName: "INSERT" | "MODIFY" | "REMOVE" = "INSERT") {
  sequence++;
  return {
    eventID: `c81e728d9d4c2f636f067f89cc14862c${sequence}`,
    eventName,
    eventVersion: "1.1",
    eventSource: "aws:dynamodb",
    awsRegion: "eu-west-1",
    dynamodb: {
      ApproximateCreationDateTime: 1_765_000_000,
      Keys: { runId: { S: runId }, seq: { N: String(seq) } },
      SequenceNumber: String(sequence).padStart(21, "0"),
      SizeBytes: 59,
      StreamViewType: "KEYS_ONLY",
    },
    eventSourceARN: "arn:aws:dynamodb:eu-west-1:123456789012:table/runs/stream/2026-12-04T00:00:00.000",
  };
}
const recordsOf = (runId: string, events: readonly RunEvent[]) => events.map((e) => record(runId, e.seq));

const publisher = () =>
  lifecycleHandler(() => ({
    store,
    bus: new EventBridgeLifecycleBus({
      client: new EventBridgeClient({ region: "eu-west-1" }),
      busName: "runlog-bus",
    }),
  }));
const sent = (): PutEventsRequestEntry[] =>
  bus.commandCalls(PutEventsCommand).flatMap((call) => call.args[0].input.Entries ?? []);
const details = () => sent().map((entry) => LifecycleEventSchema.parse(JSON.parse(entry.Detail!)));

describe("the lifecycle publisher", () => {
  it("publishes what the log implies, as onLifecycle hears it, in order, on its own bus", async () => {
    bus.on(PutEventsCommand).callsFake((input) => ({
      FailedEntryCount: 0,
      Entries: input.Entries.map((_: unknown, i: number) => ({ EventId: `e${i}` })),
    }));
    const started = await local.runlog.start({ agent: "demo", input: "Mail", runId: "r1", metadata });
    expect(started.status).toBe("paused");
    const call = (await local.events("r1")).find((e) => e.type === "paused");
    const callId = call?.type === "paused" ? call.calls[0]!.id : "";
    await local.runlog.approve("r1", callId, { by: "ana" });
    const events = await local.events("r1");
    // A head update and a big payload's chunk are on the stream too: they publish nothing.
    const records = [record("r1", 0, "MODIFY"), record("blob#abc", 1), ...recordsOf("r1", events)];

    const answer = await publisher()({ Records: records });
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(details()).toEqual(heard);
    expect(details().map((d) => d.type)).toEqual([
      "runlog.RunStarted",
      "runlog.RunPaused",
      "runlog.RunResumed",
      "runlog.RunCompleted",
    ]);
    for (const entry of sent()) {
      const detail = JSON.parse(entry.Detail!) as LifecycleEvent;
      expect(entry).toMatchObject({ EventBusName: "runlog-bus", Source: "runlog", DetailType: detail.type });
      expect(detail).toMatchObject({ id: `r1/${detail.seq}`, metadata });
    }
  });

  it("a batch refused part way answers with the record to go on from; sent again, every event is published at least once, in order", async () => {
    await local.runlog.start({ agent: "demo", input: "Mail", runId: "r2", metadata });
    const records = recordsOf("r2", await local.events("r2"));
    // The bus refuses the second entry of the first call (RunPaused, at the last record).
    bus.on(PutEventsCommand).callsFakeOnce(() => ({
      FailedEntryCount: 1,
      Entries: [{ EventId: "e0" }, { ErrorCode: "InternalFailure", ErrorMessage: "try again" }],
    }));
    const handle = publisher();
    const first = await handle({ Records: records });
    const paused = records.at(-1)!;
    expect(first).toEqual({ batchItemFailures: [{ itemIdentifier: paused.dynamodb.SequenceNumber }] });

    // Lambda sends the batch again from that record on.
    bus.on(PutEventsCommand).callsFake((input) => ({
      FailedEntryCount: 0,
      Entries: input.Entries.map(() => ({ EventId: "ok" })),
    }));
    const from = records.indexOf(paused);
    expect(await handle({ Records: records.slice(from) })).toEqual({ batchItemFailures: [] });
    const published = details();
    expect(published.map((d) => [d.type, d.seq])).toEqual([
      ["runlog.RunStarted", 1],
      ["runlog.RunPaused", 3],
      ["runlog.RunPaused", 3],
    ]);
    // Each of what the log implies was published (the refused one again, with the same id to drop a repeat by).
    expect(new Map(published.map((d) => [d.id, d])).size).toBe(heard.length);
  });

  it("a store that cannot be read stops the batch at that record, after publishing what came before", async () => {
    bus.on(PutEventsCommand).callsFake((input) => ({
      FailedEntryCount: 0,
      Entries: input.Entries.map(() => ({ EventId: "ok" })),
    }));
    await local.runlog.start({ agent: "demo", input: "Mail", runId: "r3", metadata });
    const good = recordsOf("r3", await local.events("r3"));
    const read = store.read.bind(store);
    store.read = async (runId, after) => {
      if (runId === "broken") throw new Error("throttled");
      return read(runId, after);
    };
    const broken = record("broken", 1);
    const answer = await publisher()({ Records: [...good, broken] });
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: broken.dynamodb.SequenceNumber }] });
    expect(details().map((d) => d.type)).toEqual(["runlog.RunStarted", "runlog.RunPaused"]);
  });

  it("a record that is not a stream record is refused naming the field", async () => {
    await expect(publisher()({ Records: [{ eventName: "INSERT", dynamodb: {} }] })).rejects.toMatchObject({
      name: "InvalidInputError",
      field: "Records.0.dynamodb.Keys",
    });
  });
});
