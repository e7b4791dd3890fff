import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { script } from "../support/cli.ts";
import { call, DONE, expectError, openApp, settled } from "./support.ts";

/** POST /runs/redrive, in process, on a real store in background mode. */
let t: Awaited<ReturnType<typeof openApp>>;
beforeAll(async () => {
  t = await openApp("http-redrive");
});
afterAll(() => t.close());

async function rest(runId: string, turns: unknown[]): Promise<Record<string, unknown>> {
  const model = script(t.dir, runId, turns);
  expect((await call(t.app, "POST", "/runs", { agent: "demo", input: "go", runId, model })).status).toBe(202);
  return settled(t.app, runId);
}

describe("POST /runs/redrive", () => {
  it("resumes the run that failed retryably and reports each run", async () => {
    expect(await rest("outage", [{ error: "connection" }, DONE])).toMatchObject({ status: "failed" });
    expect(await rest("rejected", [{ error: "rejected" }, DONE])).toMatchObject({ status: "failed" });
    // A run that happens to be named like the route is still read at GET /runs/:id.
    expect(await rest("redrive", [DONE])).toMatchObject({ status: "completed" });

    const dry = await call(t.app, "POST", "/runs/redrive", { dryRun: true, sinceMs: 3_600_000 });
    expect(dry).toMatchObject({ status: 200, body: { dryRun: true, examined: 2, resumed: 1, skipped: 1 } });

    const done = await call(t.app, "POST", "/runs/redrive", { concurrency: 1 });
    expect(done.status).toBe(202);
    expect(done.body.runs).toEqual(
      expect.arrayContaining([
        { runId: "outage", outcome: "resumed", generation: 2 },
        { runId: "rejected", outcome: "skipped", why: expect.stringContaining("rejected") },
      ]),
    );
    expect(await settled(t.app, "outage")).toMatchObject({ status: "completed", output: "Done" });
    expect((await call(t.app, "GET", "/runs/redrive")).status).toBe(200);
  });

  it("refuses a body it cannot read, naming the field", async () => {
    expectError(await call(t.app, "POST", "/runs/redrive", { concurrency: 0 }), 400, "invalid_input");
    expectError(await call(t.app, "POST", "/runs/redrive", { since: "1h" }), 400, "invalid_input");
    expect((await call(t.app, "GET", "/runs/redrive/resume-point")).status).not.toBe(405);
  });
});
