import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../lib/http/app.ts";
import { MAX_BODY_BYTES } from "../../lib/http/schemas.ts";
import { script } from "../support/cli.ts";
import { call, DONE, expectError, openApp, settled } from "./support.ts";

/** Every way a request can be wrong gets a JSON 4xx naming the problem, never a 500, and writes nothing. */
let t: Awaited<ReturnType<typeof openApp>>;
beforeAll(async () => {
  t = await openApp("http-errors");
  const model = script(t.dir, "done", [DONE]);
  await call(t.app, "POST", "/runs", { agent: "demo", input: "hi", runId: "known", model });
  await settled(t.app, "known");
});
afterAll(() => t.close());

const ROUTES: [string, string, unknown?][] = [
  ["GET", "/runs/ID"],
  ["GET", "/runs/ID/events"],
  ["GET", "/runs/ID/resume-point"],
  ["POST", "/runs/ID/resume", {}],
  ["POST", "/runs/ID/fork", {}],
  ["POST", "/runs/ID/messages", { message: "hi" }],
  ["POST", "/runs/ID/approvals/call_0_0", { approved: true }],
  ["POST", "/runs/ID/cancel", {}],
];

describe("run ids in the path", () => {
  it.each(ROUTES)("%s %s: an unknown run is 404", async (method, path, body) => {
    expectError(await call(t.app, method, path.replace("ID", "no-such-run"), body), 404, "not_found");
  });

  it.each(["/runs/ID", "/runs/ID/events", "/runs/ID/resume-point", "/runs/ID/events/2"])(
    "GET %s: the 404 names the run as a field, beside its message",
    async (path) => {
      const answer = await call(t.app, "GET", path.replace("ID", "no-such-run"));
      expectError(answer, 404, "not_found");
      expect(answer.body).toMatchObject({ error: { runId: "no-such-run" } });
    },
  );

  it("a missing event's 404 names the run and the seq", async () => {
    const answer = await call(t.app, "GET", "/runs/known/events/999");
    expectError(answer, 404, "not_found");
    expect(answer.body).toMatchObject({ error: { runId: "known", seq: 999 } });
  });

  const HOSTILE = [
    "..%2F..",
    "..%2F..%2Fetc%2Fpasswd",
    "..%5C..",
    "%ZZ",
    "%E0%A4%A",
    "%25",
    "a%00b",
    "%20",
    "a%2Fb",
    "x".repeat(129),
    "y".repeat(10_000),
  ];
  it.each(ROUTES.flatMap(([method, path, body]) => HOSTILE.map((id) => [method, path, body, id] as const)))(
    "%s %s: hostile id %#",
    async (method, path, body, id) => {
      const error = expectError(
        await call(t.app, method, path.replace("ID", id), body),
        400,
        "invalid_input",
      );
      // The path parameter, by its name in the OpenAPI document (`/runs/{id}`).
      expect(error.field).toBe("id");
      expect(error.message).toMatch(/^id: run id .* is invalid/);
    },
  );

  it("a dot-dot segment never reaches a run route: URL parsing resolves it first, so it is a JSON 404", async () => {
    expectError(await call(t.app, "GET", "/runs/%2E%2E"), 404, "not_found");
    expectError(await call(t.app, "GET", "/runs/%2e%2e/events"), 404, "not_found");
  });

  it("a fork id or body runId with path characters is 400 naming the field", async () => {
    const fork = await call(t.app, "POST", "/runs/known/fork", { forkId: "../x" });
    expect(expectError(fork, 400, "invalid_input")).toMatchObject({ field: "forkId" });
    const start = await call(t.app, "POST", "/runs", { agent: "demo", input: "x", runId: "a/b" });
    expect(expectError(start, 400, "invalid_input")).toMatchObject({ field: "runId" });
  });

  it("a call id with spaces or too long is 400", async () => {
    const spaced = await call(t.app, "POST", "/runs/known/approvals/a%20b", { approved: true });
    expect(expectError(spaced, 400, "invalid_input")).toMatchObject({ field: "callId" });
    const long = await call(t.app, "POST", `/runs/known/approvals/${"c".repeat(300)}`, { approved: true });
    expect(expectError(long, 400, "invalid_input")).toMatchObject({ field: "callId" });
  });
});

describe("bodies", () => {
  const BAD: [string, string, unknown, string][] = [
    ["malformed JSON", "/runs", '{"agent": "demo",', "body"],
    ["an array", "/runs", "[]", "body"],
    ["a string", "/runs", '"hi"', "body"],
    ["null", "/runs", "null", "body"],
    ["a number", "/runs/known/cancel", "42", "body"],
    ["a missing field", "/runs", { agent: "demo" }, "input"],
    ["a wrong type", "/runs", { agent: "demo", input: 42 }, "input"],
    ["an unknown field", "/runs", { agent: "demo", input: "x", extra: true }, "extra"],
    ["an empty input", "/runs", { agent: "demo", input: "   " }, "input"],
    ["an input over 256 KB", "/runs", { agent: "demo", input: "a".repeat(300 * 1024) }, "input"],
    ["quotes that escape past 256 KB", "/runs", { agent: "demo", input: '"'.repeat(200 * 1024) }, "input"],
    ["an unknown agent", "/runs", { agent: "nobody", input: "x" }, "agent"],
    ["a missing script", "/runs", { agent: "demo", input: "x", model: "scripted:/no/such.json" }, "model"],
    ["approved as a string", "/runs/known/approvals/call_0_0", { approved: "yes" }, "approved"],
    ["no decision", "/runs/known/approvals/call_0_0", {}, "approved"],
    ["atSeq as a string", "/runs/known/fork", { atSeq: "1" }, "atSeq"],
    ["a fractional atSeq", "/runs/known/fork", { atSeq: 1.5 }, "atSeq"],
    // Refused by the fork itself (lib/steps/fork.ts), its field passed through as the body's.
    ["atSeq past the log's end", "/runs/known/fork", { atSeq: 99 }, "atSeq"],
    ["an empty message", "/runs/known/messages", { message: "" }, "message"],
    ["a message over 256 KB", "/runs/known/messages", { message: "m".repeat(257 * 1024) }, "message"],
    ["a number as model", "/runs/known/resume", { model: 7 }, "model"],
    ["by as an object", "/runs/known/cancel", { by: { name: "x" } }, "by"],
  ];
  it.each(BAD)("%s is 400 naming %s... and writes nothing", async (_, path, body, field) => {
    const before = (await call(t.app, "GET", "/runs/known/events")).body;
    const error = expectError(await call(t.app, "POST", path, body), 400, "invalid_input");
    expect(error.field).toBe(field);
    expect((await call(t.app, "GET", "/runs/known/events")).body).toEqual(before);
  });

  it("a body over 1 MB is 413, with or without Content-Length, before it is parsed", async () => {
    const huge = JSON.stringify({ agent: "demo", input: "z".repeat(MAX_BODY_BYTES) });
    expectError(await call(t.app, "POST", "/runs", huge), 413, "payload_too_large");
    const declared = { "content-length": String(huge.length) };
    expectError(await call(t.app, "POST", "/runs", huge, declared), 413, "payload_too_large");
    // Not JSON at all: still 413, so the size is checked first.
    expectError(
      await call(t.app, "POST", "/runs/known/cancel", "{".repeat(MAX_BODY_BYTES + 1)),
      413,
      "payload_too_large",
    );
  });

  it("a body that is not declared JSON is 415, even an empty one (no cross-site form or no-cors POST)", async () => {
    const form = await call(t.app, "POST", "/runs/known/cancel", "by=x", {
      "content-type": "application/x-www-form-urlencoded",
    });
    expectError(form, 415, "unsupported_media_type");
    const bare = await t.app.request("/runs/known/cancel", { method: "POST" });
    expect(bare.status).toBe(415);
    expect(await bare.json()).toMatchObject({ error: { code: "unsupported_media_type" } });
    expect((await call(t.app, "GET", "/runs/known")).body).toMatchObject({ status: "completed" });
  });

  it("runId with an Idempotency-Key, or a key that is not printable ASCII, is 400", async () => {
    const both = await call(
      t.app,
      "POST",
      "/runs",
      { agent: "demo", input: "x", runId: "r" },
      { "idempotency-key": "k" },
    );
    expect(expectError(both, 400, "invalid_input")).toMatchObject({ field: "runId" });
    const long = await call(
      t.app,
      "POST",
      "/runs",
      { agent: "demo", input: "x" },
      { "idempotency-key": "k".repeat(300) },
    );
    expect(expectError(long, 400, "invalid_input")).toMatchObject({ field: "Idempotency-Key" });
  });

  it("a script file as model is refused unless the app allows them (a deployed API reads no caller-named path)", async () => {
    const strict = createApp(t.local.runlog);
    const answer = await call(strict, "POST", "/runs", {
      agent: "demo",
      input: "x",
      model: "scripted:/etc/passwd",
    });
    expect(expectError(answer, 400, "invalid_input")).toMatchObject({ field: "model" });
    expect(answer.body.error).not.toMatchObject({ message: expect.stringContaining("root") });
  });
});
