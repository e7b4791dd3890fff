import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyedBatchId } from "../../lib/api/keyedIds.ts";
import type { Principal } from "../../lib/core/principal.ts";
import { callerKey } from "../../lib/http/idempotency.ts";
import { call, expectError, lines, openApp } from "./support.ts";

/**
 * POST /runs/replays and GET /replays/{batchId} on the local server (background executions, as
 * `runlog serve` runs them), with an authenticator: each request is its principal's. The demo
 * agent's write_note appends to notes.txt: a recorded side effect that must not happen again.
 */
const PRINCIPALS: Record<string, Principal> = {
  alice: { id: "arn:aws:iam::1:user/alice" },
  bob: { id: "arn:aws:iam::1:user/bob" },
};
const as = (who: string, more: Record<string, string> = {}) => ({ "x-test-principal": who, ...more });
let opened: Awaited<ReturnType<typeof openApp>>;
const app = () => opened.app;
const spec = (name: string, turns: unknown[]) => {
  const path = join(opened.dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ turns }));
  return `scripted:${path}`;
};
const TWO = [
  { toolCalls: [{ name: "get_weather", arguments: { city: "Porto" } }] },
  { text: "Porto is fine." },
  { toolCalls: [{ name: "write_note", arguments: { text: "umbrella" } }] },
  { text: "Noted." },
];

async function settled(runId: string, who = "alice") {
  for (;;) {
    const { status, body } = await call(app(), "GET", `/runs/${runId}`, undefined, as(who));
    expect(status).toBe(200);
    if (body.status !== "running") return body;
    await sleep(10);
  }
}

/** Read the report until every replay is done (each read may send a replay its next recorded message). */
async function report(batchId: string, who = "alice") {
  for (;;) {
    const { status, body } = await call(app(), "GET", `/replays/${batchId}`, undefined, as(who));
    expect(status, JSON.stringify(body)).toBe(200);
    if (body.done === true) return body as { runs: Record<string, unknown>[]; changed: number; done: true };
    await sleep(10);
  }
}

const replays = (body: unknown, who = "alice", headers: Record<string, string> = {}) =>
  call(app(), "POST", "/runs/replays", body, as(who, headers));

beforeAll(async () => {
  opened = await openApp("replays-http", {
    allowScriptFiles: true,
    principal: (c) => PRINCIPALS[c.req.header("x-test-principal") ?? ""],
  });
  const day = { agent: "demo", input: "plan my day", model: "scripted:demo", runId: "day" };
  expect((await call(app(), "POST", "/runs", day, as("alice"))).status).toBe(202);
  expect(await settled("day")).toMatchObject({ status: "completed" });
  const two = { agent: "demo", input: "weather?", model: spec("two", TWO), runId: "two" };
  expect((await call(app(), "POST", "/runs", two, as("alice"))).status).toBe(202);
  await settled("two");
  const sent = await call(app(), "POST", "/runs/two/messages", { message: "note it" }, as("alice"));
  expect(sent.status).toBe(202);
  expect(await settled("two")).toMatchObject({ status: "completed", output: "Noted." });
});
afterAll(async () => {
  await opened.close();
});

describe("POST /runs/replays", () => {
  it("replays on an unchanged model: no change reported, no recorded tool run again", async () => {
    const notes = lines(opened.dir, "notes.txt").length;
    const started = await replays({ runIds: ["day"], model: "scripted:demo" });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const batchId = started.body.batchId as string;
    expect(batchId).toMatch(/^replays-[0-9a-f]{16}$/);
    expect(started.headers.get("location")).toBe(`/replays/${batchId}`);
    expect(started.body.runs).toEqual([{ runId: "day", replayRunId: `${batchId}.0` }]);
    const done = await report(batchId);
    expect(done).toMatchObject({ batchId, changed: 0, done: true });
    expect(done.runs[0]).toMatchObject({ runId: "day", status: "done", changed: false, differences: [] });
    expect(lines(opened.dir, "notes.txt").length).toBe(notes);
    const events = await opened.local.runlog.events(`${batchId}.0`);
    expect(events[0]).toMatchObject({
      metadata: { replayOf: "day", replayTools: "recorded", replayBatch: batchId, replayRuns: ["day"] },
    });
    // Answered from the recording: results, and no tool_started (nothing ran).
    expect(events.filter((e) => e.type === "tool_result").length).toBeGreaterThan(0);
    expect(events.some((e) => e.type === "tool_started")).toBe(false);
  });

  it("gives a multi-message replay its next recorded message as the report is read", async () => {
    const notes = lines(opened.dir, "notes.txt").length;
    const started = await replays({ runIds: ["two"], model: spec("two-again", TWO) });
    expect(started.status).toBe(202);
    const done = await report(started.body.batchId as string);
    expect(done).toMatchObject({ changed: 0, done: true });
    expect((done.runs[0]!.figures as { replayed: { turns: number } }).replayed.turns).toBe(4);
    expect(lines(opened.dir, "notes.txt").length).toBe(notes);
  });

  it("names what changed on a changed model", async () => {
    const model = spec("changed", [
      { toolCalls: [{ name: "get_weather", arguments: { city: "Lisboa" } }] },
      { text: "Have a nice day." },
    ]);
    const started = await replays({ runIds: ["day", "two"], model, tools: "recorded" });
    expect(started.status).toBe(202);
    const done = await report(started.body.batchId as string);
    expect(done.changed).toBe(2);
    const day = done.runs[0] as { changed: boolean; differences: { what: string }[] };
    expect(day.changed).toBe(true);
    expect(day.differences.map((d) => d.what)).toEqual(
      expect.arrayContaining(["answer", "tool_call_arguments", "tool_call_removed"]),
    );
    // Lisboa is not in the recording (it asked for Lisbon): the replay was told so, never ran it.
    const events = await opened.local.runlog.events(`${started.body.batchId}.0`);
    const result = events.find((e) => e.type === "tool_result");
    expect(result).toMatchObject({ isError: true });
    expect(result?.type === "tool_result" && result.content).toMatch(/recording of run day has no call/);
  });

  it("an Idempotency-Key names the batch: a repeat starts nothing, another body is a 409 idempotency_key_reused", async () => {
    const key = { "idempotency-key": "nightly-2026-12-06" };
    const body = { runIds: ["day"], model: "scripted:demo" };
    const first = await replays(body, "alice", key);
    expect(first.status).toBe(202);
    const again = await replays(body, "alice", key);
    expect(again.status).toBe(200);
    expect(again.body.batchId).toBe(first.body.batchId);
    await report(first.body.batchId as string);
    const other = await replays({ ...body, tools: "live" }, "alice", key);
    // As every route answers a key reused with another request; the run it names is the batch's first.
    expect(expectError(other, 409, "idempotency_key_reused")).toMatchObject({
      runId: `${first.body.batchId}.0`,
    });
    const runs = await opened.local.runlog.list();
    expect(runs.runs.filter((r) => r.runId.startsWith(`${first.body.batchId}.`)).length).toBe(1);
  });

  it("a retry under the key completes a batch cut short after its first start", async () => {
    const key = "cut-short";
    // Keys are per caller: the batch alice's key names.
    const batchId = keyedBatchId(callerKey(opened.local.runlog.as(PRINCIPALS.alice!), key));
    // What a crash between the two starts leaves: replay 0 only, as the route starts it.
    const metadata = {
      replayOf: "day",
      replayTools: "recorded",
      replayBatch: batchId,
      replayRuns: ["day", "two"],
    };
    await opened.local.runlog.as(PRINCIPALS.alice!).start({
      agent: "demo",
      input: "plan my day",
      model: "scripted:demo",
      runId: `${batchId}.0`,
      metadata,
    });
    const body = { runIds: ["day", "two"], model: "scripted:demo" };
    const retried = await replays(body, "alice", { "idempotency-key": key });
    expect(retried.status, JSON.stringify(retried.body)).toBe(202);
    expect(retried.body.batchId).toBe(batchId);
    const done = await report(batchId);
    expect(done.runs.map((r) => [r.runId, r.replayRunId, r.status])).toEqual([
      ["day", `${batchId}.0`, "done"],
      ["two", `${batchId}.1`, "done"],
    ]);
  });

  it("another tenant's run is a 404 and nothing is written", async () => {
    const before = (await opened.local.runlog.list()).runs.length;
    const answer = await replays({ runIds: ["day"], model: "scripted:demo" }, "bob");
    expectError(answer, 404, "not_found");
    expect((await opened.local.runlog.list()).runs.length).toBe(before);
  });

  it("refuses a bad body naming the field, and a bad model before anything starts", async () => {
    const before = (await opened.local.runlog.list()).runs.length;
    expect(
      expectError(await replays({ runIds: [], model: "scripted:demo" }), 400, "invalid_input"),
    ).toMatchObject({ field: "runIds" });
    expect(expectError(await replays({ runIds: ["day"] }), 400, "invalid_input")).toMatchObject({
      field: "model",
    });
    const tools = await replays({ runIds: ["day"], model: "scripted:demo", tools: "maybe" });
    expect(expectError(tools, 400, "invalid_input")).toMatchObject({ field: "tools" });
    const many = await replays({
      runIds: Array.from({ length: 11 }, (_, i) => `r${i}`),
      model: "scripted:demo",
    });
    expect(expectError(many, 400, "invalid_input")).toMatchObject({ field: "runIds" });
    expectError(await replays({ runIds: ["day", "nope"], model: "scripted:demo" }), 404, "not_found");
    expectError(await replays({ runIds: ["day"], model: "nosuch:model" }), 400, "unknown_model");
    expect((await opened.local.runlog.list()).runs.length).toBe(before);
  });
});

describe("GET /replays/{batchId}", () => {
  it("is a 404 for an unknown batch and for another tenant's, a 400 for a malformed id", async () => {
    const started = await replays({ runIds: ["day"], model: "scripted:demo" });
    const batchId = started.body.batchId as string;
    await report(batchId);
    expectError(await call(app(), "GET", `/replays/${batchId}`, undefined, as("bob")), 404, "not_found");
    const unknown = await call(app(), "GET", "/replays/replays-0000000000000000", undefined, as("alice"));
    expectError(unknown, 404, "not_found");
    const bad = await call(app(), "GET", "/replays/day", undefined, as("alice"));
    expect(expectError(bad, 400, "invalid_input")).toMatchObject({ field: "batchId" });
  });
});
