import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  InvalidInputError,
  LeaseHeldError,
  MissingIndexError,
  ModelUnavailableError,
  PermanentError,
} from "../../lib/core/errors.ts";
import { errorAnswer } from "../../lib/http/errors.ts";
import { script } from "../support/cli.ts";
import { call, DONE, expectError, openApp, settled } from "./support.ts";

/** Queries, unknown routes, wrong methods, and the error-kind to status mapping. */
let t: Awaited<ReturnType<typeof openApp>>;
beforeAll(async () => {
  t = await openApp("http-routing");
  const model = script(t.dir, "done", [DONE]);
  await call(t.app, "POST", "/runs", { agent: "demo", input: "hi", runId: "known", model });
  await settled(t.app, "known");
});
afterAll(() => t.close());

describe("queries", () => {
  it.each([
    ["/runs?limit=0", "limit"],
    ["/runs?limit=abc", "limit"],
    ["/runs?limit=1e3", "limit"],
    ["/runs?limit=5000", "limit"],
    ["/runs?cursor=not-a-cursor", "cursor"],
    [`/runs?cursor=${Buffer.from('{"x":{"S":"y"}}').toString("base64url")}`, "cursor"],
    ["/runs?status=sleeping", "status"],
    ["/runs?parent=a%2Fb", "parent"],
    ["/runs?parent=", "parent"],
    ["/runs/known/events?after=-1", "after"],
    ["/runs/known/events?after=two", "after"],
    ["/runs/known/events?since=1", "since"],
  ])("%s is 400 naming %s", async (path, field) => {
    expect(expectError(await call(t.app, "GET", path), 400, "invalid_input")).toMatchObject({ field });
  });
});

describe("routes and methods", () => {
  it.each([
    ["GET", "/"],
    ["GET", "/nope"],
    ["POST", "/runs/known/unknown", {}],
    ["GET", "/runs/known/events/1/body"],
  ])("%s %s is a JSON 404", async (method, path, body?) => {
    expectError(await call(t.app, method, path, body), 404, "not_found");
  });

  it.each([
    ["DELETE", "/runs", "POST, GET"],
    ["PUT", "/runs/known", "GET"],
    ["GET", "/runs/known/cancel", "POST"],
    ["PATCH", "/runs/known/approvals/call_0_0", "POST"],
    ["OPTIONS", "/runs", "POST, GET"],
  ])("%s %s is a JSON 405 with Allow: %s", async (method, path, allow) => {
    const answer = await call(t.app, method, path);
    expectError(answer, 405, "method_not_allowed");
    expect(answer.headers.get("allow")).toBe(allow);
  });
});

describe("errorAnswer", () => {
  it.each([
    [new InvalidInputError("bad"), 400, "invalid_input", "bad"],
    [new LeaseHeldError("held"), 409, "run_in_progress", "held"],
    [new ModelUnavailableError("slow down"), 503, "model_unavailable", "slow down"],
    [new PermanentError("table missing"), 500, "internal", "table missing"],
    [
      new MissingIndexError("runs", "byParent", "no index byParent"),
      501,
      "index_missing",
      "no index byParent",
    ],
    [new TypeError("x is undefined at secret.ts:12"), 500, "internal", "internal error"],
  ])("%s -> %i %s", (error, status, code, message) => {
    expect(errorAnswer(error)).toMatchObject({ status, body: { error: { code, message } } });
  });
});
