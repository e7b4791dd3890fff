import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../lib/http/app.ts";
import { script } from "../support/cli.ts";
import { call, expectError, openApp, settled } from "./support.ts";

/** What a request got wrong is named as the request names it, in words that say what would pass. */
let t: Awaited<ReturnType<typeof openApp>>;
beforeAll(async () => {
  t = await openApp("http-request-checks");
  expect((await call(t.app, "POST", "/runs", { agent: "demo", input: "go", runId: "a1" })).status).toBe(202);
  await settled(t.app, "a1");
});
afterAll(() => t.close());

describe("body fields", () => {
  it.each([
    [
      "/runs",
      { agent: "demo", input: "go", limits: { maxTurns: 0 } },
      "limits.maxTurns",
      "limits.maxTurns must be a whole number, 1 or more",
    ],
    [
      "/runs",
      { agent: "demo", input: "go", limits: { maxTurns: 1.5 } },
      "limits.maxTurns",
      "limits.maxTurns must be a whole number, 1 or more",
    ],
    [
      "/runs/a1/resume",
      { limits: { maxCostUsd: -1 } },
      "limits.maxCostUsd",
      "limits.maxCostUsd must be a number of US dollars above 0",
    ],
    ["/runs/a1/fork", { atSeq: 0 }, "atSeq", "atSeq: must be a whole number, 1 or more"],
    ["/runs/a1/fork", { atSeq: "4" }, "atSeq", "atSeq: must be a whole number, 1 or more"],
    [
      "/runs/redrive",
      { concurrency: 65 },
      "concurrency",
      "concurrency: must be a whole number, from 1 to 64",
    ],
    ["/runs", { agent: "x".repeat(129), input: "go" }, "agent", "agent: must be at most 128 characters"],
    ["/runs", { input: "go" }, "agent", "agent: is required (a string)"],
    [
      "/runs",
      { agent: "demo", input: "go", metadata: "order-17" },
      "metadata",
      "metadata: must be a JSON object",
    ],
    [
      "/runs/replays",
      { runIds: ["a1"], model: "scripted:demo", tools: "some" },
      "tools",
      'tools: must be "recorded" or "live"',
    ],
  ])("POST %s %j: 400 naming %s", async (path, body, field, message) => {
    const error = expectError(await call(t.app, "POST", path, body), 400, "invalid_input");
    expect(error).toMatchObject({ field, message });
  });

  it.each(["/runs/a1/cancel", "/runs/a1/approvals/call_0_0"])(
    "POST %s with a blank `by` names the body's field `by`, not the library's actor.by",
    async (path) => {
      const error = expectError(
        await call(t.app, "POST", path, { approved: true, by: "   " }),
        400,
        "invalid_input",
      );
      expect(error.field).toBe("by");
      if (path.endsWith("cancel")) expect(error.message).toBe("by: must not be blank");
    },
  );
});

describe("query parameters and path parts", () => {
  it.each([
    [
      "/runs/a1/events?after=99999999999999999",
      "after",
      "after: must be a whole number from 0 to 9007199254740991",
    ],
    ["/runs/a1/events?limit=5000", "limit", "limit: must be a whole number from 1 to 1000"],
    ["/runs/a1/events?wait=-1", "wait", "wait: must be a whole number from 0 to 20"],
    ["/runs?limit=0", "limit", "limit: must be a whole number from 1 to 1000"],
    ["/runs/a1/events/99999999999999999", "seq", "seq: must be a whole number from 1 to 9007199254740991"],
  ])("GET %s: 400 naming %s and the range", async (path, field, message) => {
    const error = expectError(await call(t.app, "GET", path), 400, "invalid_input");
    expect(error.field).toBe(field);
    expect(error.message.startsWith(message)).toBe(true);
  });

  it("a query parameter given twice is refused, naming it", async () => {
    const error = expectError(await call(t.app, "GET", "/runs?limit=1&limit=2"), 400, "invalid_input");
    expect(error).toMatchObject({ field: "limit", message: expect.stringContaining("given 2 times") });
  });

  it("a bad run id in the path names the path parameter `id`, as the OpenAPI document does", async () => {
    const error = expectError(await call(t.app, "GET", "/runs/-x"), 400, "invalid_input");
    expect(error.field).toBe("id");
  });

  it("a lifecycle id without its /SEQ part says so", async () => {
    const feed = { follow: () => ({ replay: { missed: false, events: [] }, stop: () => {} }) };
    const withFeed = createApp(t.local.runlog, { lifecycle: feed as never });
    const error = expectError(await call(withFeed, "GET", "/lifecycle?after=bad"), 400, "invalid_input");
    expect(error.field).toBe("after");
    expect(error.message).toContain('has no "/SEQ" part');
  });
});

describe("bodies that are not UTF-8 JSON", () => {
  it("a charset other than UTF-8 is a 415 naming it", async () => {
    const answer = await call(t.app, "POST", "/runs/a1/cancel", "{}", {
      "content-type": "application/json; charset=latin1",
    });
    expect(expectError(answer, 415, "unsupported_media_type").message).toContain('"latin1"');
    const utf8 = await call(
      t.app,
      "POST",
      "/runs",
      { agent: "demo", input: "go", runId: "u8" },
      {
        "content-type": "application/json; charset=UTF-8",
      },
    );
    expect(utf8.status).toBe(202);
    await settled(t.app, "u8");
  });

  it("bytes that are not UTF-8 are a 400, and nothing is stored", async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"agent":"demo","runId":"latin","input":"caf'),
      Buffer.from([0xe9]),
      Buffer.from('"}'),
    ]);
    const response = await t.app.request("/runs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: bytes,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_input", field: "body" } });
    expectError(await call(t.app, "GET", "/runs/latin"), 404, "not_found");
  });
});

describe("an app mounted under a prefix", () => {
  it("answers Location under the prefix, and JSON 404 for an unknown path under it", async () => {
    const outer = new Hono();
    outer.get("/health", (c) => c.text("ok"));
    outer.route("/runlog", t.app);
    const started = await call(outer, "POST", "/runlog/runs/replays", {
      runIds: ["a1"],
      model: "scripted:demo",
    });
    expect(started.status).toBe(202);
    const location = started.headers.get("location");
    expect(location).toBe(`/runlog/replays/${started.body.batchId}`);
    expect((await call(outer, "GET", location ?? "")).status).toBe(200);
    expectError(await call(outer, "GET", "/runlog/nope"), 404, "not_found");
    expect(await (await outer.request("/health")).text()).toBe("ok");
  });

  it("answers Location from the root when not mounted", async () => {
    const started = await call(t.app, "POST", "/runs/replays", { runIds: ["a1"], model: "scripted:demo" });
    expect(started.headers.get("location")).toBe(`/replays/${started.body.batchId}`);
  });
});

describe("ids taken", () => {
  it("a fork id taken by another fork, with an Idempotency-Key, is 409 id_taken, not idempotency_key_reused", async () => {
    expect((await call(t.app, "POST", "/runs/a1/fork", { atSeq: 2, forkId: "f3" })).status).toBe(202);
    await settled(t.app, "f3");
    const answer = await call(
      t.app,
      "POST",
      "/runs/a1/fork",
      { atSeq: 1, forkId: "f3" },
      {
        "idempotency-key": "brand-new-key-1",
      },
    );
    const error = expectError(answer, 409, "id_taken");
    expect(error.message).toMatch(/^fork id f3 is taken by a different run/);
    expect(answer.body).toMatchObject({ error: { id: "f3" } });
  });

  it("a replay of a run still running, with an Idempotency-Key, is 409 conflict, not idempotency_key_reused", async () => {
    const model = script(t.dir, "slow", [{ text: "slow", delayMs: 3_000 }]);
    const slow = { agent: "demo", input: "go", runId: "slow", model };
    expect((await call(t.app, "POST", "/runs", slow)).status).toBe(202);
    const answer = await call(
      t.app,
      "POST",
      "/runs/replays",
      { runIds: ["slow"], model: "scripted:demo" },
      {
        "idempotency-key": "replay-key-1",
      },
    );
    expect(expectError(answer, 409, "conflict").message).toMatch(/still running/);
    await settled(t.app, "slow");
  });
});
