import { describe, expect, it, vi } from "vitest";
import type { NewEvent, RunEvent } from "../../lib/core/events.ts";
import { LogReader, readLog } from "../../lib/core/logReader.ts";
import { MessageBuilder, toMessages } from "../../lib/core/messageBuilder.ts";
import { INTERRUPTED_TOOL_RESULT } from "../../lib/core/messages.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";
import { LogCache } from "../../lib/steps/logCache.ts";

const AT = new Date("2026-01-01T00:00:00Z");
const message = (seq: number): RunEvent =>
  stamp({ type: "user_message", text: `m${seq}` } as NewEvent, seq, AT);

/** A store holding one run's log, whose reads can be held open; it counts what it is asked. */
function fakeStore(log: RunEvent[]) {
  const reads: number[] = [];
  let hold: Promise<void> | undefined;
  const store = {
    read: async (_runId: string, after = 0) => {
      reads.push(after);
      const answer = log.filter((event) => event.seq > after);
      await hold;
      return answer;
    },
  } as unknown as EventStore;
  return {
    store,
    reads,
    holdReads() {
      let release!: () => void;
      hold = new Promise((resolve) => {
        release = resolve;
      });
      return () => {
        hold = undefined;
        release();
      };
    },
  };
}

describe("LogCache", () => {
  it("reads after the last seq it holds, not after the count: a log with a gap is never read twice over", async () => {
    const log = [message(1), message(2), message(4)];
    const { store, reads } = fakeStore(log);
    const cache = new LogCache(store);
    expect((await cache.load("r")).map((event) => event.seq)).toEqual([1, 2, 4]);
    log.push(message(5));
    expect((await cache.load("r")).map((event) => event.seq)).toEqual([1, 2, 4, 5]);
    expect(reads).toEqual([0, 4]);
    // An append after the last seq held is followed: the next load reads nothing it holds.
    cache.appended("r", message(6));
    log.push(message(6));
    expect((await cache.load("r")).map((event) => event.seq)).toEqual([1, 2, 4, 5, 6]);
    expect(reads).toEqual([0, 4, 6]);
  });

  it("reads only what comes after the events it holds", async () => {
    const log = [message(1), message(2)];
    const { store, reads } = fakeStore(log);
    const cache = new LogCache(store);
    expect(await cache.load("r")).toHaveLength(2);
    log.push(message(3));
    expect(await cache.load("r")).toHaveLength(3);
    expect(reads).toEqual([0, 2]);
  });

  it("never puts back a shorter log than an append recorded while it was reading", async () => {
    const log = [message(1), message(2)];
    const { store, holdReads } = fakeStore(log);
    const cache = new LogCache(store, { trustTail: true });
    await cache.load("r");
    const release = holdReads();
    const loading = cache.load("r"); // reads after seq 2, and is held open
    log.push(message(3));
    cache.appended("r", log[2]!); // this process appended seq 3 meanwhile
    release();
    expect((await loading).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect((await cache.current("r")).map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it.each([
    { case: "a read that found less than was appended meanwhile", found: 3, appended: 4 },
    { case: "a read that found more than was appended meanwhile", found: 4, appended: 3 },
  ])("merges $case: every event once, in order", async ({ found, appended }) => {
    const log = [message(1), message(2)];
    const { store, holdReads } = fakeStore(log);
    const cache = new LogCache(store, { trustTail: true });
    const held = await cache.load("r");
    for (let seq = 3; seq <= found; seq++) log.push(message(seq));
    const release = holdReads();
    const loading = cache.load("r"); // finds seq 3 to `found`, and is held open
    for (let seq = log.length + 1; seq <= appended; seq++) log.push(message(seq));
    for (let seq = 3; seq <= appended; seq++) cache.appended("r", log[seq - 1]!);
    release();
    expect((await loading).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect((await cache.current("r")).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    // The log it handed out earlier is a snapshot: it still shows what it showed.
    expect(held.map((e) => e.seq)).toEqual([1, 2]);
  });

  it("hands out snapshots that never change: later events come in a new one, made without copying", async () => {
    const { store } = fakeStore([message(1), message(2)]);
    const cache = new LogCache(store, { trustTail: true });
    const events = await cache.load("r");
    const first = [...events];
    cache.appended("r", message(3));
    expect(events).toEqual(first);
    expect(events).toHaveLength(2);
    expect(events.at(-1)?.seq).toBe(2);
    const later = await cache.current("r");
    expect(later.map((e) => e.seq)).toEqual([1, 2, 3]);
    // Asked again with nothing new, the same snapshot.
    expect(await cache.current("r")).toBe(later);
    cache.appended("r", message(5)); // not the next seq: not this log's next event, left out
    expect(await cache.current("r")).toHaveLength(3);
    // Read-only: a holder cannot change what the cache or anyone else sees.
    expect(() => (later as RunEvent[]).push(message(4))).toThrow(TypeError);
    expect(() => {
      (later as RunEvent[])[0] = message(9);
    }).toThrow(TypeError);
    expect(Array.isArray(later)).toBe(true);
    expect(JSON.parse(JSON.stringify(later))).toEqual(later.map((e) => ({ ...e })));
    expect(later.slice(1).map((e) => e.seq)).toEqual([2, 3]);
    expect(Object.keys(later)).toEqual(["0", "1", "2"]);
  });

  it("reads the facts of an older snapshot as they were, after newer ones were read", async () => {
    const log = [
      stamp({ type: "run_started", runId: "r", agent: "demo", model: "scripted:demo", input: "go" }, 1, AT),
      message(2),
    ];
    const { store } = fakeStore(log);
    const cache = new LogCache(store, { trustTail: true });
    const older = await cache.load("r");
    cache.appended("r", message(3));
    const newer = await cache.current("r");
    expect(cache.factsOf("r", newer)).toEqual(readLog(newer));
    expect(cache.factsOf("r", older)).toEqual(readLog(older));
    expect(cache.messagesOf("r", newer)).toEqual(toMessages(newer));
    expect(cache.messagesOf("r", older)).toEqual(toMessages(older));
  });

  it("trusted as the tail, answers from memory; otherwise reads", async () => {
    const { store, reads } = fakeStore([message(1)]);
    const trusted = new LogCache(store, { trustTail: true });
    await trusted.load("r");
    await trusted.current("r");
    expect(reads).toEqual([0]);
    const untrusted = new LogCache(store);
    await untrusted.load("r");
    await untrusted.current("r");
    expect(reads).toEqual([0, 0, 1]);
  });

  it("keeps at most maxRuns runs, the least recently used out first", async () => {
    const { store } = fakeStore([message(1)]);
    const cache = new LogCache(store, { maxRuns: 2 });
    await cache.load("a");
    await cache.load("b");
    await cache.load("a");
    await cache.load("c");
    expect([cache.has("a"), cache.has("b"), cache.has("c")]).toEqual([true, false, true]);
  });

  it("by default holds hundreds of runs taking turns, so each turn reads only what is new", async () => {
    // A process serving runs round-robin: under a run bound smaller than the runs under way,
    // LRU drops each run just before its next turn and every turn reads the whole log again.
    const { store, reads } = fakeStore([message(1), message(2)]);
    const cache = new LogCache(store, { trustTail: true });
    const runs = Array.from({ length: 300 }, (_, i) => `run-${i}`);
    for (const runId of runs) await cache.load(runId);
    for (let turn = 0; turn < 3; turn++) for (const runId of runs) await cache.current(runId);
    expect(reads).toEqual(runs.map(() => 0));
    expect(runs.every((runId) => cache.has(runId))).toBe(true);
  });
});

describe("LogCache.factsOf", () => {
  it("reads each event of the log it holds once, and answers as readLog does", async () => {
    const log = [
      stamp({ type: "run_started", runId: "r", agent: "demo", model: "scripted:demo", input: "go" }, 1, AT),
      message(2),
    ];
    const { store } = fakeStore(log);
    const cache = new LogCache(store, { trustTail: true });
    const events = await cache.load("r");
    expect(cache.factsOf("r", events)).toEqual(readLog(events));
    const next = message(3);
    cache.appended("r", next);
    const longer = await cache.current("r");
    expect(cache.factsOf("r", longer)).toEqual(readLog(longer));
    const reads = vi.spyOn(LogReader.prototype, "read");
    cache.factsOf("r", longer);
    expect(reads).not.toHaveBeenCalled();
    cache.appended("r", message(4));
    const longest = await cache.current("r");
    expect(cache.factsOf("r", longest)).toEqual(readLog(longest));
    expect(reads).toHaveBeenCalledTimes(1 + 4); // the new event, then readLog's own four
    reads.mockRestore();
  });

  it("reads a log it does not hold as readLog does", () => {
    const { store } = fakeStore([]);
    const events = [message(1)];
    expect(new LogCache(store).factsOf("r", events)).toEqual(readLog(events));
  });
});

describe("LogCache.messagesOf", () => {
  it("folds each event of the log it holds in once, and answers as toMessages does", async () => {
    const log = [
      stamp({ type: "run_started", runId: "r", agent: "demo", model: "scripted:demo", input: "go" }, 1, AT),
      stamp(
        {
          type: "model_response",
          text: "",
          toolCalls: [{ id: "a", name: "echo", arguments: "{}" }],
          stop: "tool_calls",
        } as NewEvent,
        2,
        AT,
      ),
    ];
    const { store } = fakeStore(log);
    const cache = new LogCache(store, { trustTail: true });
    const events = await cache.load("r");
    const adds = vi.spyOn(MessageBuilder.prototype, "add");
    const open = cache.messagesOf("r", events);
    const openBefore = structuredClone(open);
    expect(open.at(-1)).toMatchObject({ toolCallId: "a", content: INTERRUPTED_TOOL_RESULT });
    expect(adds).toHaveBeenCalledTimes(2);
    cache.messagesOf("r", events);
    expect(adds).toHaveBeenCalledTimes(2);
    cache.appended(
      "r",
      stamp({ type: "tool_result", callId: "a", name: "echo", content: "ok", isError: false }, 3, AT),
    );
    const later = await cache.current("r");
    const answered = cache.messagesOf("r", later);
    expect(answered.at(-1)).toMatchObject({ toolCallId: "a", content: "ok" });
    expect(adds).toHaveBeenCalledTimes(3);
    expect(open.at(-1)).toMatchObject({ content: INTERRUPTED_TOOL_RESULT }); // what it gave before stays
    adds.mockRestore();
    // toMessages folds a builder too: compared only once the spy is gone.
    expect(openBefore).toEqual(toMessages(events));
    expect(answered).toEqual(toMessages(later));
  });

  it("builds the messages of a log it does not hold as toMessages does", () => {
    const { store } = fakeStore([]);
    const events = [message(1)];
    expect(new LogCache(store).messagesOf("r", events)).toEqual(toMessages(events));
  });
});
