import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type RunlogClient } from "../../lib/client/client.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../../lib/core/errors.ts";
import { lines } from "../http/support.ts";
import { type ServedApp, serveApp } from "./support.ts";

/** Replay batches through the typed client, against `runlog serve`'s app on a real port. */
let served: ServedApp;
let client: RunlogClient;

beforeAll(async () => {
  served = await serveApp("client-replays");
  client = createClient({ url: served.url, auth: { type: "bearer", token: served.token } });
  await client.start({ agent: "demo", input: "plan my day", model: "scripted:demo", runId: "day" });
  while ((await client.get("day")).status === "running") await sleep(20);
});
afterAll(() => served.close());

describe("startReplays and replayReport", () => {
  it("start a batch, retried under its key once, and read its report to the end", async () => {
    const notes = lines(served.dir, "notes.txt").length;
    const request = { runIds: ["day"], model: "scripted:demo" };
    const started = await client.startReplays(request, { idempotencyKey: "ci-1" });
    expect(started).toMatchObject({ created: true, runs: [{ runId: "day" }] });
    const again = await client.startReplays(request, { idempotencyKey: "ci-1" });
    expect(again).toEqual({ ...started, created: false });
    let report = await client.replayReport(started.batchId);
    while (!report.done) {
      await sleep(20);
      report = await client.replayReport(started.batchId);
    }
    expect(report).toMatchObject({ batchId: started.batchId, changed: 0, done: true });
    expect(report.runs[0]).toMatchObject({ runId: "day", status: "done", changed: false });
    expect(lines(served.dir, "notes.txt").length).toBe(notes);
    await expect(
      client.startReplays({ ...request, tools: "live" }, { idempotencyKey: "ci-1" }),
    ).rejects.toThrow(ConflictError);
  });

  it("answer refusals as the library's errors", async () => {
    await expect(client.startReplays({ runIds: ["nope"], model: "scripted:demo" })).rejects.toThrow(
      NotFoundError,
    );
    const bad = await client.startReplays({ runIds: [], model: "scripted:demo" }).catch((error) => error);
    expect(bad).toBeInstanceOf(InvalidInputError);
    expect(bad).toMatchObject({ field: "runIds" });
    await expect(client.replayReport("replays-0123456789abcdef")).rejects.toThrow(NotFoundError);
  });
});
