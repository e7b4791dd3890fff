import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILT_IN_AGENTS } from "../../lib/agents/builtIn.ts";
import { agentRegistry } from "../../lib/agents/registry.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";
import type { Orchestrator } from "../../lib/ports/runtime.ts";
import { LocalOrchestrator } from "../../lib/runtime/local/orchestrator.ts";
import { modelResolver } from "../../lib/runtime/models.ts";
import type { ControlDeps, StepDeps } from "../../lib/steps/deps.ts";
import { LogCache } from "../../lib/steps/logCache.ts";
import { AUTO_REDRIVES, autoRedrivePolicy, redrive } from "../../lib/steps/redrive.ts";
import { startRun } from "../../lib/steps/start.ts";
import { unstoredWork } from "../../lib/steps/unstoredWork.ts";
import { script, tempDataDir, testEnv } from "../support/cli.ts";
import { connectStore } from "../support/store.ts";

const dataDir = tempDataDir("redrive");
let store: EventStore;
let close: () => Promise<void>;
let deps: ControlDeps & { ids: { runId: () => string } };
/** Executions running at once, and the most there ever were. */
const executing = { now: 0, peak: 0, runs: [] as string[] };

const DONE = { text: "Done", stop: "stop", delayMs: 40 };
/** Start a run that goes through `turns` and ends where its script makes it end. */
const run = (runId: string, turns: unknown[], agent = "demo") =>
  startRun(deps, { agent, input: "go", runId, model: script(dataDir, runId, turns) });
const types = async (runId: string) => (await store.read(runId)).map((event) => event.type);
const status = async (runId: string) => (await store.getHead(runId))?.status;

beforeAll(async () => {
  const connected = await connectStore({ dataDir, env: testEnv() });
  store = connected.store;
  close = connected.close;
  const steps: StepDeps = {
    store,
    logs: new LogCache(store),
    unstored: unstoredWork(),
    agents: agentRegistry(
      { dataDir },
      {
        ...BUILT_IN_AGENTS,
        travel: (c) => ({ ...BUILT_IN_AGENTS.demo!(c), name: "travel" }),
        auto: (c) => ({ ...BUILT_IN_AGENTS.demo!(c), name: "auto" }),
      },
    ),
    models: modelResolver(),
    clock: { now: () => new Date() },
    faults: { reached: () => {} },
  };
  const local = new LocalOrchestrator({ deps: () => steps, store, leaseMs: 30_000, retryIntervalMs: 1 });
  // The same orchestrator, counting the executions it runs at once.
  const orchestrator: Orchestrator = Object.assign(Object.create(local) as Orchestrator, {
    execute: async (input: Parameters<Orchestrator["execute"]>[0]) => {
      executing.now++;
      executing.peak = Math.max(executing.peak, executing.now);
      executing.runs.push(input.runId);
      try {
        await local.execute(input);
      } finally {
        executing.now--;
      }
    },
  });
  let n = 0;
  deps = { ...steps, orchestrator, leaseMs: 30_000, ids: { runId: () => `run-${++n}` } };
});

afterAll(async () => {
  await close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("redrive on the local (SQLite) store", () => {
  it("resumes the runs that failed retryably, each once, and only those", async () => {
    for (const id of ["outage-1", "outage-2", "outage-3", "outage-4", "outage-5"])
      await run(id, [{ error: "connection" }, DONE]);
    await run("limited", [{ error: "rate_limit" }, DONE], "travel");
    await run("rejected", [{ error: "rejected" }, DONE]);
    await run("done", [{ text: "fine", stop: "stop" }]);
    for (const id of ["outage-1", "limited", "rejected"]) expect(await status(id)).toBe("failed");

    const dry = await redrive(deps, { dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, examined: 7, resumed: 6, skipped: 1, failed: 0 });
    expect(dry.runs.find((r) => r.runId === "rejected")).toMatchObject({
      outcome: "skipped",
      why: expect.stringContaining("rejected"),
    });
    expect(await types("outage-1")).toEqual(["run_started", "model_failed"]);

    executing.peak = 0;
    executing.runs = [];
    const report = await redrive(deps, { concurrency: 2, perSecond: 1000 });
    expect(report).toMatchObject({ dryRun: false, examined: 7, resumed: 6, skipped: 1, failed: 0 });
    expect(
      report.runs
        .filter((r) => r.outcome === "resumed")
        .map((r) => r.runId)
        .sort(),
    ).toEqual(["limited", "outage-1", "outage-2", "outage-3", "outage-4", "outage-5"]);
    expect(report.runs.find((r) => r.runId === "outage-1")).toEqual({
      runId: "outage-1",
      outcome: "resumed",
      generation: 2,
    });
    // Bounded: never more than two executions at once, and each run executed once.
    expect(executing.peak).toBe(2);
    expect(executing.runs.toSorted()).toEqual([
      "limited",
      "outage-1",
      "outage-2",
      "outage-3",
      "outage-4",
      "outage-5",
    ]);
    expect(await status("outage-1")).toBe("completed");
    const log = await store.read("outage-1");
    expect(log.find((e) => e.type === "resumed")).toMatchObject({ by: "redrive", generation: 2 });
    expect(await status("rejected")).toBe("failed");
    expect(await types("rejected")).toEqual(["run_started", "model_failed"]);
    expect(await types("done")).toEqual(["run_started", "model_response"]);

    const again = await redrive(deps);
    expect(again).toMatchObject({ examined: 1, resumed: 0, skipped: 1 });
    expect(again.runs).toEqual([{ runId: "rejected", outcome: "skipped", why: expect.any(String) }]);
  });

  it("takes only the agent and the time window asked for", async () => {
    await run("other-agent", [{ error: "connection" }, DONE], "travel");
    await run("this-agent", [{ error: "connection" }, DONE]);
    const byAgent = await redrive(deps, { agent: "travel", dryRun: true });
    expect(byAgent.runs.map((r) => r.runId)).toEqual(["other-agent"]);
    const future = { ...deps, clock: { now: () => new Date(Date.now() + 3_600_000) } };
    expect((await redrive(future, { sinceMs: 60_000, dryRun: true })).examined).toBe(0);
    expect((await redrive(future, { sinceMs: 7_200_000, dryRun: true })).resumed).toBe(2);
  });

  it("waits out the quiet period, and stops after maxRedrives failing in a row", async () => {
    await run("flaky", [{ error: "connection" }, { error: "connection" }, DONE]);
    const quiet = await redrive(deps, { quietMs: 600_000 });
    expect(quiet.runs.find((r) => r.runId === "flaky")).toMatchObject({
      outcome: "skipped",
      why: expect.stringContaining("redriven after 600s"),
    });
    const later = { ...deps, clock: { now: () => new Date(Date.now() + 3_600_000) } };
    const first = await redrive(later, { quietMs: 600_000, maxRedrives: 1, agent: "demo" });
    expect(first.runs.find((r) => r.runId === "flaky")).toMatchObject({ outcome: "resumed" });
    expect(await status("flaky")).toBe("failed");
    const second = await redrive(later, { quietMs: 600_000, maxRedrives: 1, agent: "demo" });
    expect(second.runs.find((r) => r.runId === "flaky")).toMatchObject({
      outcome: "skipped",
      why: expect.stringContaining("redriven 1 time(s)"),
    });
    expect(await types("flaky")).toEqual(["run_started", "model_failed", "resumed", "model_failed"]);
  });

  it("the sweeper's automatic policy: quiet first, once per failure, and only so many in a row", async () => {
    const turns = [...Array.from({ length: AUTO_REDRIVES + 1 }, () => ({ error: "connection" })), DONE];
    await run("auto", turns, "auto");
    const policy = { ...autoRedrivePolicy(1_800_000), agent: "auto" };
    expect((await redrive(deps, policy)).runs).toEqual([
      { runId: "auto", outcome: "skipped", why: expect.stringContaining("redriven after 1800s") },
    ]);
    // Each round looks from later on: a run that failed again waits a new quiet period from its new failure.
    let at = Date.now();
    const round = async () => {
      at += 3_600_000;
      const now = at;
      return (await redrive({ ...deps, clock: { now: () => new Date(now) } }, policy)).runs[0];
    };
    for (let i = 0; i < AUTO_REDRIVES; i++) expect(await round()).toMatchObject({ outcome: "resumed" });
    expect(await round()).toMatchObject({
      outcome: "skipped",
      why: expect.stringContaining("redriven 3 time(s)"),
    });
    expect((await store.read("auto")).filter((e) => e.type === "resumed")).toHaveLength(AUTO_REDRIVES);
  });
});
