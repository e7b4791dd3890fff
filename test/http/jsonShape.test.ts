import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StartRunDetail } from "../../functions/schemas.ts";
import { MAX_JSON_DEPTH } from "../../lib/core/metadata.ts";
import { call, expectError, openApp, settled } from "./support.ts";

/**
 * A caller's JSON values (metadata, modelSettings.providerOptions) have a shape checked before
 * any recursive parse: nested too deep is a 400 naming the field, not a 500 from a blown stack;
 * a `__proto__` key is a 400 naming its path, not silently dropped.
 */
let t: Awaited<ReturnType<typeof openApp>>;
beforeAll(async () => {
  t = await openApp("http-json-shape");
  expect((await call(t.app, "POST", "/runs", { agent: "demo", input: "go", runId: "shape" })).status).toBe(
    202,
  );
  await settled(t.app, "shape");
});
afterAll(() => t.close());

/** `[[[…1…]]]`, `levels` arrays deep, written as text (JSON.stringify would recurse too). */
const nested = (levels: number) => `${"[".repeat(levels)}1${"]".repeat(levels)}`;
const post = (path: string, json: string) =>
  call(t.app, "POST", path, json, { "content-type": "application/json" });

describe("JSON nested too deep", () => {
  it.each([
    [
      "POST /runs metadata",
      "/runs",
      (v: string) => `{"agent":"demo","input":"go","metadata":{"a":${v}}}`,
      "metadata.a",
    ],
    [
      "POST /runs providerOptions",
      "/runs",
      (v: string) => `{"agent":"demo","input":"go","modelSettings":{"providerOptions":{"x":${v}}}}`,
      "modelSettings.providerOptions.x",
    ],
    [
      "POST /runs/{id}/resume providerOptions",
      "/runs/shape/resume",
      (v: string) => `{"modelSettings":{"providerOptions":{"x":${v}}}}`,
      "modelSettings.providerOptions.x",
    ],
    [
      "POST /runs/{id}/fork providerOptions",
      "/runs/shape/fork",
      (v: string) => `{"input":"again","modelSettings":{"providerOptions":{"x":${v}}}}`,
      "modelSettings.providerOptions.x",
    ],
  ])("%s: 5,000 levels is a 400 naming the field", async (_, path, body, field) => {
    const error = expectError(await post(path, body(nested(5000))), 400, "invalid_input");
    expect(error.field).toBe(field);
    expect(error.message).toContain(`more than ${MAX_JSON_DEPTH} levels`);
  });

  it("the limit counts the metadata object itself: 64 levels in all pass, 65 do not", async () => {
    const body = (levels: number) => `{"agent":"demo","input":"go","metadata":{"a":${nested(levels)}}}`;
    const ok = await post("/runs", body(MAX_JSON_DEPTH - 1));
    expect(ok.status, JSON.stringify(ok.body)).toBe(202);
    await settled(t.app, ok.body.runId as string);
    expect(expectError(await post("/runs", body(MAX_JSON_DEPTH)), 400, "invalid_input").field).toBe(
      "metadata.a",
    );
  });

  it("an EventBridge StartRun detail (the same schema) is refused as an issue, not a thrown RangeError", () => {
    const detail = JSON.parse(`{"agent":"demo","input":"go","metadata":{"a":${nested(5000)}}}`);
    const parsed = StartRunDetail.safeParse(detail);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["metadata", "a"]);
  });
});

describe("a __proto__ key", () => {
  it.each([
    ["metadata", `{"agent":"demo","input":"go","metadata":{"__proto__":{"x":1}}}`, "metadata.__proto__"],
    [
      "nested metadata",
      `{"agent":"demo","input":"go","metadata":{"a":[{"__proto__":1}]}}`,
      "metadata.a.0.__proto__",
    ],
    [
      "providerOptions",
      `{"agent":"demo","input":"go","modelSettings":{"providerOptions":{"__proto__":{"seed":1}}}}`,
      "modelSettings.providerOptions.__proto__",
    ],
    [
      "nested providerOptions",
      `{"agent":"demo","input":"go","modelSettings":{"providerOptions":{"a":{"__proto__":1}}}}`,
      "modelSettings.providerOptions.a.__proto__",
    ],
  ])("in %s is a 400 naming its path, and nothing starts", async (_, body, field) => {
    const before = (await call(t.app, "GET", "/runs")).body.runs as unknown[];
    const error = expectError(await post("/runs", body), 400, "invalid_input");
    expect(error.field).toBe(field);
    expect(error.message).toContain("__proto__");
    expect((await call(t.app, "GET", "/runs")).body.runs).toHaveLength(before.length);
  });
});
