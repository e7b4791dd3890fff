import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient, type RunlogClient } from "../../lib/client/client.ts";
import type { ClientError } from "../../lib/client/errors.ts";
import { sleep } from "../../lib/client/retry.ts";
import { RetryableError } from "../../lib/core/errors.ts";
import { DONE } from "../http/support.ts";
import { script } from "../support/cli.ts";
import { errorAnswer, type ServedApp, serveApp } from "./support.ts";

/**
 * Retries against `runlog serve`'s app with a hand in front of it that answers 429 and 503 (and
 * loses an answer). The client's waits go through a `sleep` that records them and returns at once,
 * so what is asserted is what the client asked to wait, never how long anything took.
 */
let served: ServedApp;
let waits: number[];

beforeAll(async () => {
  served = await serveApp("client-retries");
});
afterAll(() => served.close());
afterEach(() => {
  served.front(undefined);
  waits = [];
});

function recordingClient(retry: { attempts?: number; maxDelayMs?: number } = {}): RunlogClient {
  waits = [];
  return createClient({
    url: served.url,
    auth: { type: "bearer", token: served.token },
    retry: {
      ...retry,
      sleep: async (ms) => {
        waits.push(ms);
      },
    },
  });
}

const isStart = (request: Request) => request.method === "POST" && new URL(request.url).pathname === "/runs";
const startsSent = (from: number) =>
  served.requests.slice(from).filter((r) => r.method === "POST" && r.path === "/runs");

describe("the client retries 429 and 5xx", () => {
  it("waits what Retry-After says, and sends the same Idempotency-Key each time: one run", async () => {
    const client = recordingClient();
    let starts = 0;
    served.front(async (request, app) => {
      if (isStart(request)) {
        starts++;
        if (starts === 1) return errorAnswer(503, "unavailable", { "retry-after": "1" });
        if (starts === 2) return errorAnswer(429, "too_many_runs", { "retry-after": "2" });
      }
      return app(request);
    });
    const from = served.requests.length;
    const model = script(served.dir, "retried", [DONE]);
    const started = await client.start({ agent: "demo", input: "Hi", model });
    expect(started.created).toBe(true);
    expect(waits).toEqual([1000, 2000]);
    const keys = startsSent(from).map((r) => r.headers.get("idempotency-key"));
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[\x20-\x7e]{1,255}$/);
  });

  it("starts no second run when the first start's answer is lost: the retry finds it, created: false", async () => {
    const client = recordingClient();
    let starts = 0;
    served.front(async (request, app) => {
      if (isStart(request) && ++starts === 1) {
        // The run is started; the answer never reaches the client (a gateway's 502 instead).
        await app(request);
        return new Response("Bad Gateway", { status: 502 });
      }
      return app(request);
    });
    const before = (await client.list({ limit: 1000 })).runs.length;
    const model = script(served.dir, "lost-answer", [DONE]);
    const started = await client.start({ agent: "demo", input: "Hi", model });
    expect(started.created).toBe(false);
    expect(waits).toHaveLength(1);
    const after = (await client.list({ limit: 1000 })).runs;
    expect(after).toHaveLength(before + 1);
    expect(after.filter((run) => run.runId === started.runId)).toHaveLength(1);
  });

  it("backs off exponentially without a Retry-After, and gives up after `attempts`", async () => {
    const client = recordingClient({ attempts: 3 });
    served.front(async () => errorAnswer(503, "unavailable"));
    const from = served.requests.length;
    const error = await client.get("any").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RetryableError);
    expect((error as ClientError).response).toMatchObject({ status: 503, code: "unavailable" });
    expect(served.requests.length - from).toBe(3);
    expect(waits).toHaveLength(2);
    // Full jitter over a doubling ceiling: the first wait at most 250 ms, the second at most 500.
    expect(waits[0]).toBeLessThanOrEqual(250);
    expect(waits[1]).toBeLessThanOrEqual(500);
    expect(waits[1]).toBeGreaterThanOrEqual(250);
  });

  it("does not wait longer than maxDelayMs: a longer Retry-After is thrown at once, saying when", async () => {
    const client = recordingClient({ maxDelayMs: 5_000 });
    served.front(async () => errorAnswer(429, "too_many_runs", { "retry-after": "60" }));
    const error = await client.get("any").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RetryableError);
    expect((error as ClientError).response).toMatchObject({ status: 429, retryAfterMs: 60_000 });
    expect(waits).toEqual([]);
  });

  it("retries no 4xx but 429", async () => {
    const client = recordingClient();
    served.front(async () => errorAnswer(409, "conflict"));
    const from = served.requests.length;
    await expect(client.get("any")).rejects.toThrow("conflict (from the test)");
    expect(served.requests.length - from).toBe(1);
  });

  it("stops waiting when the call is aborted: it rejects with the signal's reason", async () => {
    const stop = new AbortController();
    const client = createClient({
      url: served.url,
      auth: { type: "bearer", token: served.token },
      retry: {
        sleep: (ms, signal) => {
          stop.abort(new Error("the caller gave up"));
          return sleep(ms, signal);
        },
      },
    });
    served.front(async () => errorAnswer(503, "unavailable", { "retry-after": "10" }));
    const from = served.requests.length;
    await expect(client.get("any", { signal: stop.signal })).rejects.toThrow("the caller gave up");
    expect(served.requests.length - from).toBe(1);
  });

  it("retries a connection that fails, then says it could not reach the server", async () => {
    const client = createClient({
      // Nothing listens on port 9 of loopback (discard): every connection is refused.
      url: "http://127.0.0.1:9",
      auth: { type: "none" },
      retry: { attempts: 2, sleep: async (ms) => void waits.push(ms) },
    });
    const error = await client.get("any").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RetryableError);
    expect((error as Error).message).toContain("could not reach http://127.0.0.1:9");
    expect(waits).toHaveLength(1);
  });
});
