import { EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import type { NewEvent, RunStarted } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import { handlers } from "./handlers.ts";
import { useFunctionEnvironment } from "./support.ts";

/**
 * The deployed publisher's handler as Lambda runs it on the table's stream: its deps from the
 * environment (the table on dynalite, the bus by name), its calls recorded for the IAM check
 * (test/reliability/permissions.test.ts): reads of the table, PutEvents on its own bus only.
 */
const BUS = "runlog-test-events";
const env = useFunctionEnvironment("fn-publish-lifecycle", { RUNLOG_EVENT_BUS: BUS });
const bus = mockClient(EventBridgeClient);
beforeEach(() => {
  bus.reset();
  bus.on(PutEventsCommand).callsFake((input) => ({
    FailedEntryCount: 0,
    Entries: input.Entries.map(() => ({ EventId: "ok" })),
  }));
});

const AT = new Date("2026-12-04T10:00:00Z");
const streamRecord = (runId: string, seq: number, n: number) => ({
  eventID: `id-${n}`,
  eventName: "INSERT",
  eventVersion: "1.1",
  eventSource: "aws:dynamodb",
  awsRegion: "us-east-1",
  dynamodb: {
    Keys: { runId: { S: runId }, seq: { N: String(seq) } },
    SequenceNumber: String(1000 + n),
    SizeBytes: 40,
    StreamViewType: "KEYS_ONLY",
  },
  eventSourceARN: "arn:aws:dynamodb:us-east-1:123456789012:table/runlog/stream/2026-12-01T00:00:00.000",
});

describe("the publishLifecycle function", () => {
  it("reads the events a stream batch names from the table and puts their lifecycle on its bus", async () => {
    const store = env.store();
    const first = stamp(
      {
        type: "run_started",
        runId: "fn-r1",
        agent: "demo",
        model: "scripted:demo",
        input: "Hi",
        metadata: { k: 1 },
      },
      1,
      AT,
      1,
    ) as RunStarted;
    await store.createRun(first);
    const answer: NewEvent = { type: "model_response", text: "Hello", toolCalls: [], stop: "stop" };
    await store.append("fn-r1", stamp(answer, 2, AT, 1));

    const result = await handlers.publishLifecycle({
      Records: [streamRecord("fn-r1", 1, 1), streamRecord("fn-r1", 2, 2)],
    });
    expect(result).toEqual({ batchItemFailures: [] });
    const entries = bus.commandCalls(PutEventsCommand).flatMap((c) => c.args[0].input.Entries ?? []);
    expect(entries.map((e) => [e.EventBusName, e.DetailType])).toEqual([
      [BUS, "runlog.RunStarted"],
      [BUS, "runlog.RunCompleted"],
    ]);
    expect(JSON.parse(entries[1]!.Detail!)).toMatchObject({
      id: "fn-r1/2",
      output: "Hello",
      metadata: { k: 1 },
    });
  });
});
