import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idempotentRunId } from "../../lib/http/idempotency.ts";
import { runlogJson, script } from "../support/cli.ts";
import { call, EMAIL, expectError, openApp, settled } from "./support.ts";

/** Starting, listing and reading runs over HTTP, in process, on a real store in background mode. */
let t: Awaited<ReturnType<typeof openApp>>;
beforeAll(async () => {
  t = await openApp("http-runs");
});
afterAll(() => t.close());

const start = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(t.app, "POST", "/runs", body, headers);

describe("POST /runs", () => {
  it("starts a run (202), and a repeat with the same runId answers 200 with the same run", async () => {
    const first = await start({ agent: "demo", input: "Plan my afternoon", runId: "demo-1" });
    expect(first).toMatchObject({ status: 202, body: { runId: "demo-1" } });
    const again = await start({ agent: "demo", input: "Plan my afternoon", runId: "demo-1" });
    expect(again).toMatchObject({ status: 200, body: { runId: "demo-1" } });

    const done = await settled(t.app, "demo-1");
    expect(done).toMatchObject({
      runId: "demo-1",
      status: "completed",
      output: expect.stringContaining("Lisbon"),
    });
    // One run: a single run_started, and the repeat wrote nothing.
    const { body } = await call(t.app, "GET", "/runs/demo-1/events");
    const events = body.events as { seq: number; type: string }[];
    expect(events.filter((e) => e.type === "run_started")).toHaveLength(1);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(await start({ agent: "demo", input: "Plan my afternoon", runId: "demo-1" })).toMatchObject({
      status: 200,
    });
    expect((await call(t.app, "GET", "/runs/demo-1/events")).body.events).toEqual(events);
  });

  it("the same Idempotency-Key names the same run: 202, then 200, one run; another body with it is 409 idempotency_key_reused", async () => {
    const key = "order-7/checkout attempt";
    const first = await start({ agent: "demo", input: "Plan my morning" }, { "Idempotency-Key": key });
    expect(first).toMatchObject({ status: 202, body: { runId: idempotentRunId(t.local.runlog, key) } });
    const again = await start({ agent: "demo", input: "Plan my morning" }, { "Idempotency-Key": key });
    expect(again).toMatchObject({ status: 200, body: { runId: idempotentRunId(t.local.runlog, key) } });
    const other = await start({ agent: "demo", input: "something else" }, { "Idempotency-Key": key });
    const reused = expectError(other, 409, "idempotency_key_reused");
    expect(reused).toMatchObject({ runId: idempotentRunId(t.local.runlog, key) });
    expect(reused.message).toMatch(/Idempotency-Key was used for a different request/);
    await settled(t.app, idempotentRunId(t.local.runlog, key));
    const ids = (await allRuns())
      .map((run) => run.runId)
      .filter((id) => id === idempotentRunId(t.local.runlog, key));
    expect(ids).toHaveLength(1);
  });

  it("a run id taken by a different run is 409, and the taken run is unchanged", async () => {
    const before = (await call(t.app, "GET", "/runs/demo-1/events")).body;
    const taken = await start({ agent: "demo", input: "another prompt", runId: "demo-1" });
    expect(expectError(taken, 409, "id_taken")).toMatchObject({
      id: "demo-1",
      differences: ['input "Plan my afternoon", not "another prompt"'],
    });
    expect((await call(t.app, "GET", "/runs/demo-1/events")).body).toEqual(before);
  });

  it("without a run id, each start is a new run with a generated id", async () => {
    const a = await start({ agent: "demo", input: "one" });
    const b = await start({ agent: "demo", input: "one" });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(a.body.runId).not.toBe(b.body.runId);
    await settled(t.app, a.body.runId as string);
    await settled(t.app, b.body.runId as string);
  });
});

async function allRuns(limit?: number): Promise<Record<string, unknown>[]> {
  const runs: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({
      ...(limit === undefined ? {} : { limit: String(limit) }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    const page = await call(t.app, "GET", `/runs?${query}`);
    expect(page.status).toBe(200);
    runs.push(...(page.body.runs as Record<string, unknown>[]));
    cursor = page.body.cursor as string | undefined;
  } while (cursor !== undefined);
  return runs;
}

describe("GET /runs", () => {
  it("lists runs without lease internals, and pages by cursor with every run once", async () => {
    const whole = await allRuns();
    expect(whole.map((run) => run.runId)).toContain("demo-1");
    for (const run of whole) {
      expect(Object.keys(run).sort()).toEqual([
        "agent",
        "createdAt",
        "lastSeq",
        "owner",
        "runId",
        "status",
        "updatedAt",
      ]);
    }
    const paged = await allRuns(1);
    expect(paged.map((run) => run.runId).sort()).toEqual(whole.map((run) => run.runId).sort());
  });

  it("lists only the runs in a status with ?status", async () => {
    const model = script(t.dir, "waits", [{ toolCalls: [EMAIL] }, { text: "Sent", stop: "stop" }]);
    await start({ agent: "demo", input: "email Ana", runId: "waits-1", model });
    expect(await settled(t.app, "waits-1")).toMatchObject({ status: "paused" });
    const paused = await call(t.app, "GET", "/runs?status=paused");
    expect(paused.body.runs).toMatchObject([{ runId: "waits-1", status: "paused" }]);
    const completed = (await call(t.app, "GET", "/runs?status=completed")).body.runs as { runId: string }[];
    expect(completed.map((run) => run.runId)).toContain("demo-1");
    expect(completed.map((run) => run.runId)).not.toContain("waits-1");
  });
});

describe("GET /runs/{id}/events", () => {
  it("returns the log, or only the events after a seq", async () => {
    const all = (await call(t.app, "GET", "/runs/demo-1/events")).body;
    expect(all.runId).toBe("demo-1");
    expect((all.events as unknown[])[0]).toMatchObject({
      seq: 1,
      type: "run_started",
      input: "Plan my afternoon",
    });
    const tail = (await call(t.app, "GET", "/runs/demo-1/events?after=3")).body;
    expect(tail.events).toEqual((all.events as unknown[]).slice(3));
    const past = await call(t.app, "GET", "/runs/demo-1/events?after=9999");
    expect(past).toMatchObject({ status: 200, body: { runId: "demo-1", events: [] } });
  });
});

describe("GET /runs/{id}/resume-point", () => {
  it("is the JSON `runlog resume-point --json` prints, for a completed and for a paused run", async () => {
    const model = script(t.dir, "pause", [{ toolCalls: [EMAIL] }, { text: "Sent", stop: "stop" }]);
    await start({ agent: "demo", input: "email Ana", runId: "paused-1", model });
    expect(await settled(t.app, "paused-1")).toMatchObject({ status: "paused" });
    for (const runId of ["demo-1", "paused-1"]) {
      const http = await call(t.app, "GET", `/runs/${runId}/resume-point`);
      const cli = await runlogJson(t.dir, ["resume-point", runId]);
      expect(http.status).toBe(200);
      expect(http.body).toEqual(cli.json);
    }
    expect((await call(t.app, "GET", "/runs/paused-1/resume-point")).body).toMatchObject({
      resumable: false,
      reason: "awaiting_approval",
      waitingToolCalls: [{ id: "call_0_0", name: "send_email" }],
    });
  });
});
