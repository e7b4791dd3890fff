import { describe, expect, it, vi } from "vitest";
import { type NewEvent, type RunEvent, stamp } from "../../lib/core/events.ts";
import { LogReader, readLog } from "../../lib/core/log.ts";
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
      const answer = log.slice(after);
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
