import { afterAll, beforeAll, expect, it } from "vitest";
import { call, expectError, openApp, settled } from "./support.ts";

/** A model spec no provider serves is the same answer on every route that takes one: 400 unknown_model, field model. */
let t: Awaited<ReturnType<typeof openApp>>;
beforeAll(async () => {
  t = await openApp("http-model-errors");
  expect((await call(t.app, "POST", "/runs", { agent: "demo", input: "go", runId: "base" })).status).toBe(
    202,
  );
  await settled(t.app, "base");
});
afterAll(() => t.close());

it.each([
  ["POST /runs", "/runs", { agent: "demo", input: "go" }],
  ["POST /runs (no prefix)", "/runs", { agent: "demo", input: "go", model: "gpt" }],
  ["POST /runs/{id}/resume", "/runs/base/resume", {}],
  ["POST /runs/{id}/fork", "/runs/base/fork", {}],
  ["POST /runs/replays", "/runs/replays", { runIds: ["base"] }],
])("%s with an unknown model: 400 unknown_model naming model", async (_, path, body) => {
  const answer = await call(t.app, "POST", path, { model: "nowhere:x", ...body });
  const error = expectError(answer, 400, "unknown_model");
  expect(error.field).toBe("model");
});
