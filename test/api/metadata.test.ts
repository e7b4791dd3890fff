import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalRunlog } from "../../lib/api/local.ts";
import { IdTakenError, InvalidInputError } from "../../lib/core/errors.ts";
import { MAX_METADATA_BYTES } from "../../lib/core/metadata.ts";
import { createApp } from "../../lib/http/app.ts";
import { call, expectError } from "../http/support.ts";
import { cleanup, library, runlog, runlogJson, tempDataDir } from "../support/cli.ts";

/** A caller's metadata: taken by every way in, checked, stored in run_started, kept by forks, shown. */
const dir = tempDataDir("metadata");
let local: LocalRunlog;
beforeAll(async () => {
  local = await library(dir);
});
afterAll(() => cleanup(dir));

const first = async (runId: string) => (await local.runlog.events(runId))[0];
const rejection = (call: () => Promise<unknown>) =>
  call().then(
    () => undefined,
    (error: unknown) => error,
  );

describe("metadata on start", () => {
  it("is stored in run_started as given and kept by a fork", async () => {
    const metadata = { requestId: "r-1", tags: ["a", "b"], nested: { n: 1, ok: true, none: null } };
    const started = await local.runlog.start({ agent: "demo", input: "Plan", runId: "with-meta", metadata });
    expect(started.status).toBe("completed");
    expect(await first("with-meta")).toMatchObject({ type: "run_started", metadata });

    await local.runlog.fork({ runId: "with-meta", atSeq: 1, forkId: "with-meta-fork" });
    expect(await first("with-meta-fork")).toMatchObject({
      type: "run_started",
      metadata,
      parent: { runId: "with-meta", seq: 1 },
    });
  });

  it("a run started without it has none", async () => {
    await local.runlog.start({ agent: "demo", input: "Plan", runId: "no-meta" });
    expect(await first("no-meta")).not.toHaveProperty("metadata");
  });

  it("the same start retried with its keys in another order starts nothing; other metadata under the id is refused", async () => {
    await local.runlog.start({ agent: "demo", input: "Plan", runId: "retry-meta", metadata: { a: 1, b: 2 } });
    const again = await local.runlog.start({
      agent: "demo",
      input: "Plan",
      runId: "retry-meta",
      metadata: { b: 2, a: 1 },
    });
    expect(again.created).toBe(false);
    const other = await rejection(() =>
      local.runlog.start({ agent: "demo", input: "Plan", runId: "retry-meta", metadata: { a: 2 } }),
    );
    expect(other).toBeInstanceOf(IdTakenError);
    expect((other as IdTakenError).message).toContain("other metadata");
  });

  const circle: Record<string, unknown> = { a: 1 };
  circle.self = circle;

  it.each<[string, unknown, string]>([
    ["an array", ["r-1"], "expected a JSON object, got an array"],
    ["a string", "r-1", "expected a JSON object, got string"],
    ["null", null, "expected a JSON object, got null"],
    ["a function inside", { f: () => 1 }, "at f: expected only JSON values"],
    ["a number that JSON cannot hold", { n: Number.POSITIVE_INFINITY }, "at n: expected only JSON values"],
    ["more than the cap", { blob: "x".repeat(MAX_METADATA_BYTES) }, `over the ${MAX_METADATA_BYTES}`],
    ["an object that holds itself", circle, "cannot be written as JSON: Converting circular structure"],
  ])("%s is refused naming the field, and nothing is written", async (_, metadata, message) => {
    const runId = `bad-meta-${_.replace(/\W+/g, "-")}`;
    const error = await rejection(() =>
      local.runlog.start({ agent: "demo", input: "Plan", runId, metadata: metadata as never }),
    );
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).field).toBe("metadata");
    expect((error as Error).message).toContain(message);
    expect(await local.runlog.list()).not.toMatchObject({ runs: [expect.objectContaining({ runId })] });
  });

  it("exactly at the cap is taken", async () => {
    const blob = "x".repeat(MAX_METADATA_BYTES - JSON.stringify({ blob: "" }).length);
    const metadata = { blob };
    expect(Buffer.byteLength(JSON.stringify(metadata))).toBe(MAX_METADATA_BYTES);
    await local.runlog.start({ agent: "demo", input: "Plan", runId: "at-cap", metadata });
    expect(await first("at-cap")).toMatchObject({ metadata });
  });
});

describe("metadata over HTTP and on the command line", () => {
  it("POST /runs stores it; a non-object or an oversize one is a 400 naming metadata", async () => {
    const app = createApp(local.runlog, { allowScriptFiles: true });
    const ok = await call(app, "POST", "/runs", {
      agent: "demo",
      input: "Plan",
      runId: "http-meta",
      metadata: { requestId: "h-1" },
    });
    expect(ok.status).toBe(202);
    expect(await first("http-meta")).toMatchObject({ metadata: { requestId: "h-1" } });
    for (const metadata of [[1], "x", { big: "y".repeat(MAX_METADATA_BYTES) }]) {
      const answer = await call(app, "POST", "/runs", { agent: "demo", input: "Plan", metadata });
      expect(expectError(answer, 400, "invalid_input").message).toContain("metadata");
    }
  });

  it("run --metadata stores it and show prints it; JSON that is not an object is a usage error", async () => {
    await local.close();
    const ran = await runlog(dir, [
      "run",
      "--run-id",
      "cli-meta",
      "--metadata",
      '{"requestId":"c-1"}',
      "Plan",
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    const shown = await runlog(dir, ["show", "cli-meta"]);
    expect(shown.stdout).toContain('metadata {"requestId":"c-1"}');
    const json = await runlogJson<{ events: { metadata?: unknown }[] }>(dir, ["show", "cli-meta"]);
    expect(json.json.events[0]?.metadata).toEqual({ requestId: "c-1" });

    const notJson = await runlog(dir, ["run", "--metadata", "{requestId", "Plan"]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain("--metadata takes a JSON object");
    const notObject = await runlog(dir, ["run", "--metadata", "[1]", "Plan"]);
    expect(notObject.code).not.toBe(0);
    expect(notObject.stderr).toContain("metadata: expected a JSON object, got an array");
    local = await library(dir);
  });
});
