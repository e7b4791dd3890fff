import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { LifecycleFeed } from "../../lib/api/lifecycleFeed.ts";
import { createClient } from "../../lib/client/client.ts";
import { NotFoundError } from "../../lib/core/errors.ts";
import type { LifecycleEvent } from "../../lib/core/lifecycleSchemas.ts";
import { PING_INTERVAL_MS } from "../../lib/http/liveRoutes.ts";
import { cleanup, script, tempDataDir } from "../support/cli.ts";
import { serve, stopServed } from "../support/serve.ts";
import { type FeedServer, serveFeed } from "./lifecycleFeedSupport.ts";
import { readSse, type Sse } from "./sse.ts";
import { DONE, EMAIL } from "./support.ts";

/**
 * GET /lifecycle on a real HTTP server over the local runtime (background runs, scripted models):
 * the Server-Sent Events a dashboard reads, against what `onLifecycle` was told.
 */
let served: FeedServer;
beforeAll(async () => {
  served = await serveFeed("lifecycle-feed");
});
afterAll(() => served.close());
afterEach(() => vi.useRealTimers());

const as = (who: string, more: Record<string, string> = {}) => ({ "x-test-principal": who, ...more });

/** Open the stream as `who`, and wait until the server listens (so nothing told after this is missed). */
async function open(who: string, headers: Record<string, string> = {}, query = "") {
  const before = served.feed.listening();
  const response = await fetch(`${served.url}/lifecycle${query}`, { headers: as(who, headers) });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  await vi.waitFor(() => expect(served.feed.listening()).toBe(before + 1));
  return readSse(response);
}

/** Close a stream as a client going away does, and wait until the server has let go of it. */
async function leave(...streams: ReturnType<typeof readSse>[]): Promise<void> {
  const before = served.feed.listening();
  await Promise.all(streams.map((stream) => stream.cancel()));
  await vi.waitFor(() => expect(served.feed.listening()).toBe(before - streams.length));
}

/** Start a run as `who` that answers at once, and wait until onLifecycle heard its RunCompleted. */
async function completedRun(who: string, runId: string, metadata?: Record<string, string>) {
  const model = script(served.dir, runId, [DONE]);
  const body = { agent: "demo", input: "Hello", runId, model, ...(metadata ? { metadata } : {}) };
  expect((await served.post("/runs", body, who)).status).toBe(202);
  await vi.waitFor(() => expect(types(served.toldOf(runId))).toContain("runlog.RunCompleted"));
}

const types = (events: LifecycleEvent[]) => events.map((event) => event.type);
const asSse = (event: LifecycleEvent): Sse => ({
  event: event.type,
  id: event.id,
  data: JSON.stringify(event),
});

/** The next `count` events that are not pings. */
async function take(stream: ReturnType<typeof readSse>, count: number): Promise<Sse[]> {
  const taken: Sse[] = [];
  while (taken.length < count) {
    const next = await stream.next();
    if (!next) throw new Error(`the stream ended after ${taken.length} of ${count} events`);
    if (next.event !== "ping") taken.push(next);
  }
  return taken;
}

describe("GET /lifecycle", () => {
  it("streams each lifecycle event onLifecycle is told: id runId/seq, event the detail-type, data the detail", async () => {
    const stream = await open("alice");
    const model = script(served.dir, "feed-paused", [{ toolCalls: [EMAIL] }, DONE]);
    const start = {
      agent: "demo",
      input: "Mail Ana",
      runId: "feed-paused",
      model,
      metadata: { ticket: "T-1" },
    };
    expect((await served.post("/runs", start, "alice")).status).toBe(202);
    const [started, paused] = await take(stream, 2);
    const approved = await served.post("/runs/feed-paused/approvals/call_0_0", { approved: true }, "alice");
    expect(approved.status).toBe(202);
    const [resumed, completed] = await take(stream, 2);
    const told = served.toldOf("feed-paused");
    expect(types(told)).toEqual([
      "runlog.RunStarted",
      "runlog.RunPaused",
      "runlog.RunResumed",
      "runlog.RunCompleted",
    ]);
    expect([started, paused, resumed, completed]).toEqual(told.map(asSse));
    expect(told.map((event) => event.id)).toEqual(told.map((event) => `feed-paused/${event.seq}`));
    expect(JSON.parse(completed!.data)).toMatchObject({ output: "Done", metadata: { ticket: "T-1" } });
    await leave(stream);
  });

  it("a stream that reconnects with Last-Event-ID gets what it missed, each once, then what comes next", async () => {
    const first = await open("alice");
    await completedRun("alice", "feed-before");
    const [had] = await take(first, 1);
    await leave(first);
    await completedRun("alice", "feed-while-away");
    const again = await open("alice", { "last-event-id": had!.id! });
    await completedRun("alice", "feed-after");
    const expected = [
      ...served.toldOf("feed-before").slice(1),
      ...served.toldOf("feed-while-away"),
      ...served.toldOf("feed-after"),
    ];
    expect(await take(again, expected.length)).toEqual(expected.map(asSse));
    await leave(again);
  });

  it("`after` does what Last-Event-ID does, for a first connection (an EventSource cannot set headers)", async () => {
    await completedRun("alice", "feed-query");
    const [runStarted, runCompleted] = served.toldOf("feed-query");
    const stream = await open("alice", {}, `?after=${encodeURIComponent(runStarted!.id)}`);
    expect(await take(stream, 1)).toEqual([asSse(runCompleted!)]);
    await leave(stream);
  });

  it("a principal hears only its own runs' events; an admin hears every run's", async () => {
    const alice = await open("alice");
    const bob = await open("bob");
    const ops = await open("ops");
    await completedRun("bob", "feed-bobs");
    await completedRun("alice", "feed-alices");
    const alices = served.toldOf("feed-alices").map(asSse);
    const bobs = served.toldOf("feed-bobs").map(asSse);
    expect(await take(alice, 2)).toEqual(alices);
    expect(await take(bob, 2)).toEqual(bobs);
    expect(await take(ops, 4)).toEqual([...bobs, ...alices]);
    await leave(alice, bob, ops);
  });

  it("says `missed` when the id is no longer kept, then sends every kept event", async () => {
    const small = await serveFeed("lifecycle-feed-small", new LifecycleFeed(3));
    try {
      for (const runId of ["small-1", "small-2", "small-3"]) {
        const model = script(small.dir, runId, [DONE]);
        expect(
          (await small.post("/runs", { agent: "demo", input: "Hi", runId, model }, "alice")).status,
        ).toBe(202);
        await vi.waitFor(() => expect(small.toldOf(runId)).toHaveLength(2));
      }
      const gone = small.toldOf("small-1")[0]!.id;
      const response = await fetch(`${small.url}/lifecycle`, {
        headers: as("alice", { "last-event-id": gone }),
      });
      const stream = readSse(response);
      const [missed, ...kept] = await take(stream, 4);
      expect(missed).toMatchObject({ event: "missed" });
      expect(JSON.parse(missed!.data)).toMatchObject({ lastEventId: gone });
      expect(kept).toEqual([...small.toldOf("small-2").slice(1), ...small.toldOf("small-3")].map(asSse));
      await stream.cancel();
    } finally {
      await small.close();
    }
  });

  it("says it is still there every PING_INTERVAL_MS", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const stream = await open("alice");
    vi.advanceTimersByTime(PING_INTERVAL_MS);
    expect(await stream.next()).toEqual({ event: "ping", data: "{}" });
    await leave(stream);
  });

  it("refuses a Last-Event-ID that is not RUN_ID/SEQ, naming it", async () => {
    const response = await fetch(`${served.url}/lifecycle`, {
      headers: as("alice", { "last-event-id": "17" }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_input", field: "Last-Event-ID" } });
  });

  it("answers 404 lifecycle_unavailable, saying the events are on the bus, where the app has no feed (a deployed API)", async () => {
    const response = await fetch(`${served.deployedUrl}/lifecycle`, { headers: as("alice") });
    expect(response.status).toBe(404);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("lifecycle_unavailable");
    expect(error.message).toMatch(/EventBridge bus/);
  });
});

describe("RunlogClient.lifecycle()", () => {
  it("hears every event once, in order, across a dropped connection (reconnecting with Last-Event-ID)", async () => {
    const client = createClient({
      url: served.url,
      auth: { type: "none" },
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set("x-test-principal", "alice");
        return fetch(input, { ...init, headers });
      },
      retry: { baseDelayMs: 10 },
    });
    const stop = new AbortController();
    const heard: LifecycleEvent[] = [];
    const listening = (async () => {
      for await (const event of client.lifecycle({ signal: stop.signal })) heard.push(event);
    })().catch((error: unknown) => error);
    await vi.waitFor(() => expect(served.feed.listening()).toBeGreaterThan(0));
    await completedRun("alice", "client-before");
    await vi.waitFor(() => expect(heard).toHaveLength(2));
    served.dropConnections();
    await completedRun("alice", "client-after");
    const expected = [...served.toldOf("client-before"), ...served.toldOf("client-after")];
    await vi.waitFor(() => expect(heard).toHaveLength(4));
    await sleep(50);
    expect(heard).toEqual(expected);
    expect(served.lifecycleRequests()).toBeGreaterThan(1);
    stop.abort(new Error("done"));
    expect(await listening).toMatchObject({ message: "done" });
  });

  it("throws NotFoundError lifecycle_unavailable against a deployed API", async () => {
    const client = createClient({ url: served.deployedUrl, auth: { type: "none" } });
    const error = await client
      .lifecycle()
      .next()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ response: { code: "lifecycle_unavailable" } });
  });
});

describe("runlog serve", () => {
  it("streams its runs' lifecycle events at GET /lifecycle", { timeout: 60_000 }, async () => {
    const dir = tempDataDir("lifecycle-serve");
    const served = await serve(["--dir", dir]);
    try {
      const stream = readSse(await served.fetch("/lifecycle"));
      const started = await served.fetch("/runs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          agent: "demo",
          input: "Plan my afternoon",
          runId: "served",
          metadata: { a: "1" },
        }),
      });
      expect(started.status).toBe(202);
      // The demo agent calls a tool and answers: started, then completed (nothing in between is announced).
      const [first, last] = await take(stream, 2);
      expect(first).toMatchObject({ event: "runlog.RunStarted", id: "served/1" });
      expect(last).toMatchObject({ event: "runlog.RunCompleted" });
      expect(JSON.parse(last!.data)).toMatchObject({ runId: "served", metadata: { a: "1" } });
      await stream.cancel();
    } finally {
      stopServed(served);
      await cleanup(dir);
    }
  });
});
