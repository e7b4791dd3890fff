import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MAX_TURNS } from "../../lib/core/budget.ts";
import { call, DONE, expectError, openApp, settled } from "../http/support.ts";
import { script } from "../support/cli.ts";

/** Budgets over HTTP: POST /runs and POST /runs/{id}/resume take `limits`; the status lists and filters. */
let t: Awaited<ReturnType<typeof openApp>>;
beforeAll(async () => {
  t = await openApp("http-budgets");
});
afterAll(() => t.close());

const WEATHER = { toolCalls: [{ name: "get_weather", arguments: { city: "Lisbon" } }] };

describe("budgets over HTTP", () => {
  it("starts with lower limits, stops at them, and resumes with a raised limit from the body", async () => {
    const model = script(t.dir, "http-budget", [WEATHER, WEATHER, WEATHER, DONE]);
    const started = await call(t.app, "POST", "/runs", {
      agent: "demo",
      input: "go",
      runId: "http-budget",
      model,
      limits: { maxTurns: 1 },
    });
    expect(started.status).toBe(202);
    expect(await settled(t.app, "http-budget")).toMatchObject({ status: "budget_exhausted" });
    const listed = await call(t.app, "GET", "/runs?status=budget_exhausted");
    expect((listed.body.runs as { runId: string }[]).map((run) => run.runId)).toEqual(["http-budget"]);

    const point = await call(t.app, "GET", "/runs/http-budget/resume-point");
    expect(point.body).toMatchObject({ resumable: false, reason: "budget_exhausted" });
    const plain = await call(t.app, "POST", "/runs/http-budget/resume", {});
    expect(plain.status).toBe(409);
    expect(plain.body).toMatchObject({ error: { code: "not_resumable", reason: "budget_exhausted" } });

    const raised = await call(t.app, "POST", "/runs/http-budget/resume", { limits: { maxTurns: 10 } });
    expect(raised.status).toBe(202);
    expect(await settled(t.app, "http-budget")).toMatchObject({ status: "completed", output: "Done" });
    const events = (await call(t.app, "GET", "/runs/http-budget/events")).body.events as Record<
      string,
      unknown
    >[];
    expect(events.find((e) => e.type === "budget_exhausted")).toMatchObject({ used: { turns: 1 } });
    expect(events.find((e) => e.type === "resumed")).toMatchObject({ limits: { maxTurns: 10 } });
  });

  it("refuses limits above the agent's, or not limits at all, naming the field", async () => {
    const model = script(t.dir, "http-over", [DONE]);
    const over = await call(t.app, "POST", "/runs", {
      agent: "demo",
      input: "go",
      model,
      limits: { maxTurns: DEFAULT_MAX_TURNS + 1 },
    });
    expect(expectError(over, 400, "invalid_input").field).toBe("limits.maxTurns");
    const unknown = await call(t.app, "POST", "/runs", {
      agent: "demo",
      input: "go",
      model,
      limits: { turns: 1 },
    });
    expect(expectError(unknown, 400, "invalid_input").field).toBe("limits.turns");
    expect((await call(t.app, "GET", "/runs?status=running")).body.runs).toEqual([]);
  });
});
