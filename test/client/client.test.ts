import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ListedEvent } from "../../lib/api/followRun.ts";
import { createClient, type RunlogClient } from "../../lib/client/client.ts";
import type { RunStatus } from "../../lib/core/status.ts";
import { DONE, EMAIL } from "../http/support.ts";
import { script } from "../support/cli.ts";
import { cutAfter, type ServedApp, serveApp } from "./support.ts";

/**
 * The client against `runlog serve`'s app (background runs, live feed, its token) on a real port:
 * runs started, approved and followed through it, across a live stream the server cuts.
 */
let served: ServedApp;
let client: RunlogClient;

beforeAll(async () => {
  served = await serveApp("client");
  client = createClient({ url: served.url, auth: { type: "bearer", token: served.token } });
});
afterAll(() => served.close());

/** Poll the run through the client until it shows this status (no deadline: the test's timeout is the limit). */
async function until(runId: string, status: RunStatus): Promise<void> {
  while ((await client.get(runId)).status !== status) await sleep(20);
}

const isFinalAnswer = (event: ListedEvent) =>
  event.type === "model_response" && "stop" in event && event.stop === "stop";

/** Start a run that pauses for the approval of an email; answers the seq it paused at. */
async function pausedRun(runId: string): Promise<number> {
  const model = script(served.dir, runId, [{ toolCalls: [EMAIL] }, DONE]);
  const started = await client.start({ agent: "demo", input: "Mail Ana", runId, model });
  expect(started).toMatchObject({ runId, created: true });
  await until(runId, "paused");
  return (await client.events(runId)).at(-1)!.seq;
}

describe("a run through the client", () => {
  it("is started, approved and followed to its end: every event once, in order", async () => {
    const paused = await pausedRun("completes");
    const seen: ListedEvent[] = [];
    for await (const event of client.follow("completes")) {
      seen.push(event);
      if (event.seq === paused) {
        const decided = await client.approve("completes", "call_0_0", { by: "ana" });
        expect(decided.runId).toBe("completes");
      }
      if (isFinalAnswer(event)) break;
    }
    await until("completes", "completed");
    expect(await client.get("completes")).toEqual({
      runId: "completes",
      status: "completed",
      output: "Done",
    });
    const stored = await client.events("completes");
    expect(seen.map((event) => event.seq)).toEqual(stored.map((event) => event.seq));
    expect(stored.map((event) => event.seq)).toEqual(stored.map((_, index) => index + 1));
    expect(stored.find((event) => event.type === "tool_decided")).toMatchObject({ approved: true });
  });

  it("follows across a stream the server closes mid-run, from the last seq it saw, missing nothing", async () => {
    const paused = await pausedRun("cut-off");
    let lives = 0;
    // The first stream ends right after the approval's event; the run goes on without the client.
    served.front(async (request, app) => {
      const response = await app(request);
      const live = new URL(request.url).pathname.endsWith("/live");
      return live && ++lives === 1 ? cutAfter(response, paused + 1) : response;
    });
    try {
      const seen: number[] = [];
      for await (const event of client.follow("cut-off")) {
        seen.push(event.seq);
        if (event.seq === paused) await client.approve("cut-off", "call_0_0");
        if (isFinalAnswer(event)) break;
      }
      expect(lives).toBeGreaterThanOrEqual(2);
      const stored = (await client.events("cut-off")).map((event) => event.seq);
      expect(seen).toEqual(stored);
      expect(seen).toEqual(seen.map((_, index) => index + 1));
      const reconnect = served.requests.filter((r) => r.path === "/runs/cut-off/live")[1]!;
      expect(reconnect.headers.get("last-event-id")).toBe(String(paused + 1));
    } finally {
      served.front(undefined);
    }
  });

  it("resumes a run whose budget is spent with the raised limits it sends", async () => {
    const runId = "budget";
    const model = script(served.dir, runId, [
      { toolCalls: [{ name: "get_weather", arguments: { city: "Rome" } }] },
      DONE,
    ]);
    await client.start({ agent: "demo", input: "Weather?", runId, model, limits: { maxTurns: 1 } });
    await until(runId, "budget_exhausted");
    const resumed = await client.resume({ runId, limits: { maxTurns: 3 } });
    expect(resumed).toMatchObject({ runId, resumed: true });
    await until(runId, "completed");
    const event = (await client.events(runId)).find((listed) => listed.type === "resumed");
    expect(event).toMatchObject({ limits: { maxTurns: 3 } });
  });

  it("follows from `after`: only the events after it", async () => {
    const paused = await pausedRun("from-after");
    const first = await client.follow("from-after", { after: paused - 1 }).next();
    expect(first.value).toMatchObject({ seq: paused });
    await client.cancel("from-after", { by: "test" });
  });

  it("reads what the library reads: a page, one event, the resume point, the list", async () => {
    const paused = await pausedRun("reads");
    const page = await client.eventPage("reads", { after: 0, limit: 1 });
    expect(page).toMatchObject({ runId: "reads", events: [{ seq: 1 }], next: 1 });
    expect(await client.event("reads", 1)).toMatchObject({ seq: 1, type: "run_started" });
    const point = await client.resumePoint("reads");
    expect(point).toMatchObject({ resumable: false, reason: "awaiting_approval" });
    expect(point.resumable === false && point.waitingToolCalls?.[0]?.id).toBe("call_0_0");
    const { runs } = await client.list({ status: "paused" });
    expect(runs.map((run) => run.runId)).toContain("reads");
    expect(runs.find((run) => run.runId === "reads")).toMatchObject({ lastSeq: paused, agent: "demo" });
    const cancelled = await client.cancel("reads", { by: "test", reason: "done reading" });
    expect(cancelled).toMatchObject({ runId: "reads", status: "cancelled" });
  });

  it("sends a message to a completed run, which continues it; a fork copies it", async () => {
    const runId = "continues";
    const model = script(served.dir, runId, [DONE, { text: "Again", stop: "stop" }]);
    await client.start({ agent: "demo", input: "Hi", runId, model });
    await until(runId, "completed");
    await client.send(runId, "Once more");
    await until(runId, "completed");
    expect((await client.get(runId)).output).toBe("Again");
    const fork = await client.fork({ runId, atSeq: 3, forkId: "continues-fork" });
    expect(fork.runId).toBe("continues-fork");
  });

  it("starts once for one Idempotency-Key: the same key again answers the run, created: false", async () => {
    const model = script(served.dir, "keyed", [DONE]);
    const first = await client.start({ agent: "demo", input: "Hi", model }, { idempotencyKey: "order-17" });
    const again = await client.start({ agent: "demo", input: "Hi", model }, { idempotencyKey: "order-17" });
    expect(first.created).toBe(true);
    expect(again).toMatchObject({ runId: first.runId, created: false });
  });
});
