import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { EVENTS_MAX_WAIT_SECONDS } from "../../lib/api/eventWait.ts";
import { LiveFeed } from "../../lib/api/liveFeed.ts";
import { type LocalRunlog, openLocal } from "../../lib/api/local.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { createApp } from "../../lib/http/app.ts";
import { CONTROL_TIMEOUT_SECONDS } from "../../lib/workflow/timeouts.ts";
import { cleanup, script, tempDataDir, testEnv } from "../support/cli.ts";
import { readSse, type Sse } from "./sse.ts";
import { call, DONE, EMAIL, expectError, settled } from "./support.ts";

/**
 * Live events through the real app over the local runtime (background executions, scripted
 * models): the long-poll `wait` of GET /runs/{id}/events and the Server-Sent Events of
 * GET /runs/{id}/live. A wait that should end on an event uses wait=20 and a test timeout well
 * under it, so a wait that does not wake fails the test instead of passing late.
 */
let dir: string;
let local: LocalRunlog;
let app: Hono;
/** The same Runlog served as the Lambda serves it: no live feed. */
let lambdaLike: Hono;
/** A server with a live feed that hears none of these runs' appends: as if another process executed them. */
let elsewhere: Hono;

beforeAll(async () => {
  dir = tempDataDir("http-live");
  local = await openLocal({ dataDir: dir, background: true, env: testEnv() });
  app = createApp(local.runlog, { allowScriptFiles: true, live: local.live });
  lambdaLike = createApp(local.runlog, { allowScriptFiles: true });
  elsewhere = createApp(local.runlog, { allowScriptFiles: true, live: new LiveFeed() });
});
afterAll(async () => {
  await local.close();
  await cleanup(dir);
});

/** Start a run that pauses for the approval of an email, and wait until it has. */
async function pausedRun(runId: string): Promise<number> {
  const model = script(dir, runId, [{ toolCalls: [EMAIL] }, DONE]);
  expect((await call(app, "POST", "/runs", { agent: "demo", input: "Mail Ana", runId, model })).status).toBe(
    202,
  );
  expect(await settled(app, runId)).toMatchObject({ status: "paused" });
  return lastSeq(runId);
}

async function storedEvents(runId: string): Promise<RunEvent[]> {
  const { body } = await call(app, "GET", `/runs/${runId}/events?limit=1000`);
  expect(body.next).toBeUndefined();
  return body.events as RunEvent[];
}

const lastSeq = async (runId: string) => (await storedEvents(runId)).at(-1)!.seq;
const approve = (runId: string) => call(app, "POST", `/runs/${runId}/approvals/call_0_0`, { approved: true });

describe("GET /runs/{id}/events?wait: the long-poll", () => {
  it("answers as soon as an event is appended, with a page of it", { timeout: 10_000 }, async () => {
    const after = await pausedRun("poll-wakes");
    const polled = call(app, "GET", `/runs/poll-wakes/events?after=${after}&wait=20`);
    await vi.waitFor(() => expect(local.live.subscribers("poll-wakes")).toBe(1));
    expect((await approve("poll-wakes")).status).toBe(202);
    const { status, body } = await polled;
    expect(status).toBe(200);
    expect((body.events as RunEvent[])[0]).toMatchObject({ seq: after + 1, type: "tool_decided" });
    await settled(app, "poll-wakes");
  });

  it("answers when an event is stored on a server with no feed, by reading the store again", {
    timeout: 10_000,
  }, async () => {
    const after = await pausedRun("poll-store");
    const polled = call(lambdaLike, "GET", `/runs/poll-store/events?after=${after}&wait=20`);
    expect((await approve("poll-store")).status).toBe(202);
    const { status, body } = await polled;
    expect(status).toBe(200);
    expect((body.events as RunEvent[])[0]).toMatchObject({ seq: after + 1 });
    await settled(app, "poll-store");
  });

  // Timeouts well under the 20 s wait: an answer left for the end of the wait fails the test.
  it("answers when another process stores the event, on a server whose feed does not hear it", {
    timeout: 10_000,
  }, async () => {
    const after = await pausedRun("poll-elsewhere");
    const polled = call(elsewhere, "GET", `/runs/poll-elsewhere/events?after=${after}&wait=20`);
    expect((await approve("poll-elsewhere")).status).toBe(202);
    const { status, body } = await polled;
    expect(status).toBe(200);
    expect((body.events as RunEvent[])[0]).toMatchObject({ seq: after + 1, type: "tool_decided" });
    await settled(app, "poll-elsewhere");
  });

  it.each([
    ["a live feed", () => app],
    ["no feed", () => lambdaLike],
  ])("answers an empty page at the end of the wait, with %s", async (_, server) => {
    const after = await lastSeq("poll-wakes");
    const answer = await call(server(), "GET", `/runs/poll-wakes/events?after=${after}&wait=1`);
    expect(answer).toMatchObject({ status: 200, body: { runId: "poll-wakes", events: [] } });
    expect(answer.body).not.toHaveProperty("next");
  });

  it("answers a page at once when there are events after `after`, whatever the wait", {
    timeout: 10_000,
  }, async () => {
    const { body } = await call(app, "GET", "/runs/poll-wakes/events?after=0&wait=20");
    expect((body.events as RunEvent[])[0]).toMatchObject({ seq: 1, type: "run_started" });
  });

  it("leaves no subscription behind when the client goes away", { timeout: 10_000 }, async () => {
    const after = await pausedRun("poll-leaves");
    const client = new AbortController();
    const polled = app.request(`/runs/poll-leaves/events?after=${after}&wait=20`, { signal: client.signal });
    await vi.waitFor(() => expect(local.live.subscribers("poll-leaves")).toBe(1));
    client.abort();
    await polled;
    expect(local.live.subscribers("poll-leaves")).toBe(0);
  });

  it.each(["21", "-1", "1.5", "x", ""])("refuses wait=%j with a 400 naming wait", async (wait) => {
    const error = expectError(
      await call(app, "GET", `/runs/poll-wakes/events?wait=${wait}`),
      400,
      "invalid_input",
    );
    expect(error.field).toBe("wait");
  });

  it("holds an answer no longer than the api function may run", () => {
    // The page is read once more at the end of the wait: leave it time before API Gateway's 30 s.
    expect(EVENTS_MAX_WAIT_SECONDS + 5).toBeLessThanOrEqual(CONTROL_TIMEOUT_SECONDS.api);
  });
});

/** Read a live stream until `until` says stop; every event read, pings left out. */
async function readUntil(stream: ReturnType<typeof readSse>, until: (sse: Sse) => boolean): Promise<Sse[]> {
  const read: Sse[] = [];
  for (;;) {
    const sse = await stream.next();
    if (!sse) throw new Error(`the stream ended after ${read.length} events`);
    if (sse.event === "ping") continue;
    read.push(sse);
    if (until(sse)) return read;
  }
}

const isFinalAnswer = (sse: Sse) =>
  sse.event === "appended" &&
  JSON.parse(sse.data).type === "model_response" &&
  JSON.parse(sse.data).stop === "stop";

describe("GET /runs/{id}/live: Server-Sent Events", () => {
  it("sends the stored events, then each new one in order, and the model's text as it streams", async () => {
    const turns = [
      {
        text: "I will write that down for you now.",
        toolCalls: [{ name: "write_note", arguments: { text: "Buy milk" } }],
        delayMs: 200,
      },
      { text: "The note about milk is written, see notes.txt.", delayMs: 200 },
    ];
    const model = script(dir, "streams", turns);
    const input = "Note: milk";
    expect((await call(app, "POST", "/runs", { agent: "demo", input, runId: "streams", model })).status).toBe(
      202,
    );
    const response = await app.request("/runs/streams/live?after=0");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const stream = readSse(response);
    const read = await readUntil(stream, isFinalAnswer);
    await stream.cancel();
    await settled(app, "streams");

    const appended = read.filter((sse) => sse.event === "appended");
    const stored = await storedEvents("streams");
    // Every stored event exactly once, in seq order, as a page lists it (the same JSON), its seq as the event id.
    expect(appended.map((sse) => sse.data)).toEqual(stored.map((event) => JSON.stringify(event)));
    expect(appended.map((sse) => sse.id)).toEqual(stored.map((event) => String(event.seq)));
    const responses = stored.filter((event) => event.type === "model_response");
    const deltas = read.filter((sse) => sse.event === "delta").map((sse) => JSON.parse(sse.data).text);
    expect(deltas.length).toBeGreaterThan(responses.length);
    expect(deltas.join("")).toBe(responses.map((event) => event.text).join(""));
  });

  it("sends only the events after `after` (or the Last-Event-ID of a reconnect), then waits for more", async () => {
    const stored = await storedEvents("streams");
    for (const [path, headers] of [
      ["/runs/streams/live?after=2", {}],
      ["/runs/streams/live?after=0", { "last-event-id": "2" }],
    ] as const) {
      const stream = readSse(await app.request(path, { headers }));
      const read = await readUntil(stream, isFinalAnswer);
      expect(read.map((sse) => JSON.parse(sse.data))).toEqual(stored.slice(2));
      await stream.cancel();
    }
  });

  // Under the 15 s ping, which also reads the store: only the store's own reading passes it.
  it("sends the events another process stores, which this server's feed never hears", {
    timeout: 10_000,
  }, async () => {
    const after = await pausedRun("live-elsewhere");
    const stream = readSse(await elsewhere.request(`/runs/live-elsewhere/live?after=${after}`));
    expect((await approve("live-elsewhere")).status).toBe(202);
    await settled(app, "live-elsewhere");
    const read = await readUntil(stream, isFinalAnswer);
    await stream.cancel();
    expect(read.map((sse) => JSON.parse(sse.data))).toEqual(
      (await storedEvents("live-elsewhere")).slice(after),
    );
  });

  it("unsubscribes when the client goes away", async () => {
    await pausedRun("live-leaves");
    const stream = readSse(await app.request("/runs/live-leaves/live?after=0"));
    expect(await stream.next()).toMatchObject({ event: "appended", id: "1" });
    expect(local.live.subscribers("live-leaves")).toBe(1);
    await stream.cancel();
    await vi.waitFor(() => expect(local.live.subscribers("live-leaves")).toBe(0));
  });

  it("answers 404 live_unavailable on a server with no live feed", async () => {
    const error = expectError(await call(lambdaLike, "GET", "/runs/streams/live"), 404, "live_unavailable");
    expect(error.message).toContain("wait=");
  });

  it("answers 404 not_found for an unknown run, and 400 for a bad after", async () => {
    expectError(await call(app, "GET", "/runs/nobody/live"), 404, "not_found");
    expect(
      expectError(await call(app, "GET", "/runs/streams/live?after=x"), 400, "invalid_input").field,
    ).toBe("after");
  });
});
