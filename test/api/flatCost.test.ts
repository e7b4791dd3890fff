import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SqliteEventStore } from "../../lib/adapters/sqlite/sqliteEventStore.ts";
import { BUILT_IN_AGENTS } from "../../lib/agents/builtIn.ts";
import { agentRegistry } from "../../lib/agents/registry.ts";
import { openLocal } from "../../lib/api/local.ts";
import { Runlog } from "../../lib/api/runlog.ts";
import type { NewEvent, RunEvent } from "../../lib/core/events.ts";
import { LogReader } from "../../lib/core/logReader.ts";
import { MessageBuilder } from "../../lib/core/messageBuilder.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";
import type { ExecutionInput } from "../../lib/ports/runtime.ts";
import { LogCache } from "../../lib/steps/logCache.ts";
import { unstoredWork } from "../../lib/steps/unstoredWork.ts";
import { cleanup, tempDataDir, testEnv } from "../support/cli.ts";
import { modelsNeverCalled, recordingOrchestrator } from "../support/controlDeps.ts";
import { counted } from "../support/countingStore.ts";
import { countingAgent, countingScript } from "../support/longRun.ts";
import { connectStore } from "../support/store.ts";

/**
 * The cost of reading a run must not grow with the run: resume-point and resume read the head and
 * the tail of a 10,000-event log, and a process that holds a log reads only what is new.
 * Every store call is counted, with the events it returned.
 */
const dir = tempDataDir("flat-cost");
const AT = new Date("2026-01-01T00:00:00Z");
const TURNS = 3_400; // 3 events a turn: 10,201 events
let store: EventStore;
let closeStore: () => Promise<void>;

/** A long run as the steps write it (each turn naming its model), one generation, its last tool call interrupted. */
async function writeLongRun(runId: string): Promise<number> {
  const events: NewEvent[] = [
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "go" },
  ];
  for (let turn = 0; turn < TURNS; turn++) {
    const id = `call-${turn}`;
    events.push(
      {
        type: "model_response",
        text: "",
        toolCalls: [{ id, name: "get_weather", arguments: '{"city":"Faro"}' }],
        stop: "tool_calls",
        model: "scripted:demo",
      },
      { type: "tool_started", callId: id, name: "get_weather" },
      {
        type: "tool_result",
        callId: id,
        name: "get_weather",
        content: "sunny, 2".padEnd(200, "."),
        isError: false,
      },
    );
  }
  events.pop(); // the last call started and has no result: resuming recovers it
  const stamped: RunEvent[] = events.map((event, i) => stamp(event, i + 1, AT, 1));
  await store.createRun(stamped[0] as Extract<RunEvent, { type: "run_started" }>);
  for (let from = 1; from < stamped.length; from += 200) {
    await Promise.all(stamped.slice(from, from + 200).map((event) => store.append(runId, event)));
  }
  return stamped.length;
}

function runlogOn(countedStore: EventStore, executed: ExecutionInput[]): Runlog {
  const orchestrator = recordingOrchestrator(executed);
  return new Runlog({
    store: countedStore,
    logs: new LogCache(countedStore),
    unstored: unstoredWork(),
    agents: agentRegistry({ dataDir: dir }, BUILT_IN_AGENTS),
    models: modelsNeverCalled,
    clock: { now: () => new Date() },
    faults: { reached: () => {} },
    orchestrator,
    leaseMs: 30_000,
    ids: { runId: () => "unused" },
  });
}

beforeAll(async () => {
  const connected = await connectStore({ dataDir: dir, env: testEnv() });
  store = connected.store;
  closeStore = connected.close;
}, 240_000);

afterAll(async () => {
  await closeStore?.();
  await cleanup(dir);
});

describe("on a 10,000-event run", () => {
  it("resume-point reads the head, the last three events, and that the log starts at seq 1", {
    timeout: 240_000,
  }, async () => {
    const length = await writeLongRun("long-point");
    expect(length).toBeGreaterThan(10_000);
    const { store: countedStore, count } = counted(store);
    const answer = await runlogOn(countedStore, []).resumePoint("long-point");
    expect(answer).toMatchObject({ resumable: true, kind: "recover_tools" });
    // The tail does not reach seq 1: a page of one entry, whose body is not read, says it is there.
    expect(count.calls).toEqual({ getHead: 1, readBack: 1, readPage: 1 });
    expect(count.eventsRead).toBeLessThanOrEqual(3); // the last response and its call's tool_started (and seq 1)
  });

  it("resume reads the head and the tail, writes `resumed` after it, and starts the execution", async () => {
    const length = await writeLongRun("long-resume");
    const { store: countedStore, count } = counted(store);
    const executed: ExecutionInput[] = [];
    const result = await runlogOn(countedStore, executed).resume({ runId: "long-resume" });
    expect(result.resume).toMatchObject({ resumed: true, generation: 2, kind: "recover_tools" });
    expect(executed).toHaveLength(1);
    expect(count.calls.read ?? 0).toBe(0);
    expect(count.eventsRead).toBeLessThan(10);
    const [resumed] = await store.read("long-resume", length);
    expect(resumed).toMatchObject({ type: "resumed", seq: length + 1, generation: 2, gen: 2 });
  });
});

describe("a process that holds a run's log", () => {
  it("reads only the events after the ones it holds", async () => {
    const { store: countedStore, count, reset } = counted(store);
    const logs = new LogCache(countedStore);
    const first = await logs.load("long-point");
    expect(count.eventsRead).toBe(first.length);
    reset();
    const next = stamp({ type: "cancelled", by: "test" }, first.length + 1, AT, 1);
    await store.append("long-point", next);
    const again = await logs.load("long-point");
    expect(again.at(-1)).toEqual(next);
    expect(count.eventsRead).toBe(1);
    expect(count.calls).toEqual({ read: 1 });
  });

  it("trusted as the tail, decides on it without reading at all", async () => {
    const { store: countedStore, count, reset } = counted(store);
    const logs = new LogCache(countedStore, { trustTail: true });
    await logs.load("long-resume");
    reset();
    expect((await logs.current("long-resume")).length).toBeGreaterThan(10_000);
    expect(count.calls).toEqual({});
  });

  it("keeps within its byte budget, dropping the least recently used run", async () => {
    const logs = new LogCache(store, { maxBytes: 4 * 1024 * 1024 });
    await logs.load("long-point");
    await logs.load("long-resume");
    expect(logs.has("long-resume")).toBe(true);
    expect(logs.has("long-point")).toBe(false);
  });
});

describe("a local run", () => {
  it("costs three appends a turn and no more reads for a longer run", async () => {
    const { agents } = countingAgent();
    const local = await openLocal({ dataDir: dir, env: testEnv(), agents });
    const methods = [
      "append",
      "read",
      "readBack",
      "getHead",
      "setStatus",
      "claimLease",
      "renewLease",
    ] as const;
    const spies = methods.map((method) => [method, vi.spyOn(SqliteEventStore.prototype, method)] as const);
    /** Store calls by method, for one whole run of `turns` turns. */
    const requests = async (turns: number) => {
      for (const [, spy] of spies) spy.mockClear();
      const model = countingScript(dir, `turns-${turns}`, turns);
      const outcome = await local.runlog.start({
        agent: "counter",
        input: "count",
        model,
        runId: `turns-${turns}`,
      });
      expect(outcome.status).toBe("completed");
      const count = Object.fromEntries(spies.map(([method, spy]) => [method, spy.mock.calls.length]));
      return (name: (typeof methods)[number]) => count[name] ?? 0;
    };
    try {
      const short = await requests(10);
      const long = await requests(40);
      // 30 more turns: exactly 90 more events (a response, a tool start, a result), each one append.
      expect(long("append") - short("append")).toBe(90);
      // Reading costs the same however many turns came before (a step reading its log would add 90).
      const reads = (of: typeof short) => of("read") + of("readBack") + of("getHead");
      expect(reads(long) - reads(short)).toBeLessThan(10);
      const headWrites = (of: typeof short) => of("setStatus") + of("claimLease") + of("renewLease");
      expect(headWrites(long) - headWrites(short)).toBeLessThan(10);
    } finally {
      for (const [, spy] of spies) spy.mockRestore();
      await local.close();
    }
  });
});

describe("a resume in a fresh process", () => {
  it("reads the log from the store once and reads each event into facts and messages once", async () => {
    const runId = "resume-once";
    const turns = 300;
    const model = countingScript(dir, runId, turns);
    const events: NewEvent[] = [{ type: "run_started", runId, agent: "counter", model, input: "count" }];
    for (let n = 0; n < turns; n++) {
      const id = `call-${n}`;
      events.push(
        {
          type: "model_response",
          text: "",
          toolCalls: [{ id, name: "count", arguments: JSON.stringify({ n }) }],
          stop: "tool_calls",
          model,
        },
        { type: "tool_started", callId: id, name: "count" },
        { type: "tool_result", callId: id, name: "count", content: String(n), isError: false },
      );
    }
    const stamped = events.map((event, i) => stamp(event, i + 1, AT, 1));
    await store.createRun(stamped[0] as Extract<RunEvent, { type: "run_started" }>);
    for (let from = 1; from < stamped.length; from += 100) {
      await Promise.all(stamped.slice(from, from + 100).map((event) => store.append(runId, event)));
    }
    await store.releaseLease(runId, "nobody", { status: "interrupted", lastSeq: stamped.length });

    const { agents } = countingAgent();
    const local = await openLocal({ dataDir: dir, env: testEnv(), agents });
    const reads = [
      vi.spyOn(SqliteEventStore.prototype, "read"),
      vi.spyOn(SqliteEventStore.prototype, "readBack"),
    ];
    const facts = vi.spyOn(LogReader.prototype, "read");
    const messages = vi.spyOn(MessageBuilder.prototype, "add");
    try {
      const outcome = await local.runlog.resume({ runId });
      expect(outcome).toMatchObject({ status: "completed", output: `counted to ${turns}` });
      const returned = await Promise.all(reads.flatMap((spy) => spy.mock.results.map((r) => r.value)));
      const eventsRead = (returned as RunEvent[][]).reduce((n, got) => n + got.length, 0);
      // The whole log once (901 events), then only what the resume itself wrote, and the tail read first.
      expect(eventsRead).toBeGreaterThanOrEqual(stamped.length);
      expect(eventsRead).toBeLessThan(stamped.length + 20);
      // Each event is read into the run's facts once, and folded into the model's messages once.
      expect(facts.mock.calls.length).toBeLessThan(stamped.length + 40);
      expect(messages.mock.calls.length).toBe(stamped.length + 1); // and the `resumed` marker
    } finally {
      for (const spy of [...reads, facts, messages]) spy.mockRestore();
      await local.close();
    }
  });
});
