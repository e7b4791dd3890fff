import { rmSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUILT_IN_AGENTS } from "../../lib/agents/builtIn.ts";
import { agentRegistry } from "../../lib/agents/registry.ts";
import type { RunStarted } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";
import type { ExecutionInput, Orchestrator } from "../../lib/ports/runtime.ts";
import { modelResolver } from "../../lib/runtime/models.ts";
import type { ControlDeps } from "../../lib/steps/deps.ts";
import { LogCache } from "../../lib/steps/logCache.ts";
import { type SweepReport, sweep } from "../../lib/steps/sweep.ts";
import { unstoredWork } from "../../lib/steps/unstoredWork.ts";
import { tempDataDir, testEnv } from "../support/cli.ts";
import { connectStore } from "../support/store.ts";

const HOUR = 3_600_000;
let dataDir: string;
let store: EventStore;
let close: () => Promise<void>;
const executed: ExecutionInput[] = [];

/** Executions are recorded, not run; an owner named `live:…` is alive, any other is gone. */
const orchestrator: Orchestrator = {
  execute: async (input) => {
    executed.push(input);
  },
  leaseOwnerFor: ({ runId, generation }) => `exec:${runId}:${generation}`,
  isAlive: async (owner) => owner.startsWith("live:"),
  executionOf: async (owner) => (owner.startsWith("live:") ? "running" : "ended"),
  stop: async () => false,
};

/** The sweeper's deps, its clock `offsetMs` ahead of the store's (default: an hour, so every run is idle). */
function depsAt(clock: { now(): Date }): ControlDeps {
  return {
    store,
    logs: new LogCache(store),
    unstored: unstoredWork(),
    agents: agentRegistry({ dataDir }, BUILT_IN_AGENTS),
    models: modelResolver(),
    clock,
    faults: { reached: () => {} },
    orchestrator,
    leaseMs: 60_000,
  };
}
const anHourOn = { now: () => new Date(Date.now() + HOUR) };

const first = (runId: string): RunStarted => {
  const event = stamp(
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "go" },
    1,
    new Date(),
  );
  if (event.type !== "run_started") throw new Error("unreachable");
  return event;
};

/** A run whose executor is gone (`dead:`) or alive (`live:`), its lease lapsed or not. */
async function leftRunning(runId: string, owner: string, until = Date.now() + 2 * HOUR) {
  await store.createRun(first(runId), { owner, until });
}

/** A run the sweeper resumed moments ago that died again: its next resume waits out a back-off. */
async function inBackoff(runId: string) {
  await leftRunning(runId, "dead:backoff", Date.now());
  const head = await store.getHead(runId);
  await store.claimLease(runId, { owner: "dead:backoff2", until: Date.now() }, head!.leaseVersion, {
    count: 1,
    lastAt: Date.parse(head!.createdAt) - 1,
  });
}

const resumedIds = (reports: SweepReport[]) => reports.flatMap((r) => r.resumed.map((x) => x.runId));
const mine = (prefix: string, ids: string[]) => ids.filter((id) => id.startsWith(prefix));

// A store of its own per test: the runs one test resumes are still candidates to the next's skewed clock.
beforeEach(async () => {
  dataDir = tempDataDir("sweep-coverage");
  const connected = await connectStore({ dataDir, env: testEnv() });
  store = connected.store;
  close = connected.close;
});

afterEach(async () => {
  await close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a sweep covers every candidate", () => {
  it("pages through all of them oldest first, past any page size, and leaves the live ones alone", async () => {
    const dead: string[] = [];
    for (let i = 0; i < 230; i++) {
      const runId = `cover-${String(i).padStart(3, "0")}`;
      if (i % 5 === 4) await leftRunning(runId, `live:${runId}`);
      else {
        await leftRunning(runId, `dead:${runId}`, Date.now());
        dead.push(runId);
      }
    }
    const report = await sweep(depsAt(anHourOn), { concurrency: 1 });
    console.log(report.skipped.slice(0, 3), report.resumed.slice(0, 3));
    expect(report.complete).toBe(true);
    expect(report.cursor).toBeUndefined();
    // Oldest first: with one at a time, in the order they were left.
    expect(mine("cover-", resumedIds([report]))).toEqual(dead);
    expect(
      mine(
        "cover-",
        report.skipped.map((s) => s.runId),
      ),
    ).toHaveLength(230 - dead.length);
    expect(report.failed).toEqual([]);
    expect(report.oldestStaleAgeMs).toBeGreaterThanOrEqual(HOUR);

    // Resumed, they left the window: the next sweep resumes none of them again.
    const again = await sweep(depsAt(anHourOn));
    expect(mine("cover-", resumedIds([again]))).toEqual([]);
  });

  it("stops starting candidates when its budget is spent, and says where it stopped", async () => {
    for (let i = 0; i < 40; i++)
      await leftRunning(`budget-${String(i).padStart(2, "0")}`, "dead:b", Date.now());
    // A clock that moves a second each time it is read: the budget runs out part way.
    // The clock runs on hours here: a back-off that long keeps a resumed run from being due again.
    const noRepeat = { backoffMs: 100 * HOUR, maxBackoffMs: 100 * HOUR };
    let t = Date.now() + HOUR;
    const ticking = {
      now: () => {
        t += 1_000;
        return new Date(t);
      },
    };
    const reports: SweepReport[] = [
      await sweep(depsAt(ticking), { ...noRepeat, budgetMs: 30_000, concurrency: 2 }),
    ];
    expect(reports[0]!.complete).toBe(false);
    expect(reports[0]!.cursor).toBeDefined();
    for (let i = 0; i < 40 && reports.at(-1)!.cursor !== undefined; i++) {
      reports.push(
        await sweep(depsAt(ticking), {
          ...noRepeat,
          budgetMs: 30_000,
          concurrency: 2,
          cursor: reports.at(-1)!.cursor!,
        }),
      );
    }
    expect(reports.at(-1)!.complete).toBe(true);
    const resumed = mine("budget-", resumedIds(reports));
    expect(new Set(resumed).size).toBe(resumed.length);
    expect(resumed.sort()).toEqual(
      Array.from({ length: 40 }, (_, i) => `budget-${String(i).padStart(2, "0")}`),
    );
  });

  it("does not let the oldest runs, waiting out a back-off, starve the ones behind them", async () => {
    for (let i = 0; i < 30; i++) await inBackoff(`wait-${String(i).padStart(2, "0")}`);
    const behind: string[] = [];
    for (let i = 0; i < 20; i++) {
      behind.push(`behind-${String(i).padStart(2, "0")}`);
      await leftRunning(behind.at(-1)!, "dead:behind", Date.now());
    }
    const policy = {
      backoffMs: 4 * HOUR,
      maxBackoffMs: 8 * HOUR,
      statuses: ["running"] as const,
      maxRuns: 10,
      concurrency: 4,
    };
    // Starting from the oldest every time, ten at a time, a sweep only ever meets the waiting runs.
    const fromOldest = [await sweep(depsAt(anHourOn), policy), await sweep(depsAt(anHourOn), policy)];
    expect(mine("behind-", resumedIds(fromOldest))).toEqual([]);
    expect(fromOldest.every((r) => !r.complete && r.cursor !== undefined)).toBe(true);
    // Carrying the cursor, the next sweeps go on past them and reach every run behind.
    const carried: SweepReport[] = [await sweep(depsAt(anHourOn), policy)];
    while (carried.at(-1)!.cursor !== undefined && carried.length < 20) {
      carried.push(await sweep(depsAt(anHourOn), { ...policy, cursor: carried.at(-1)!.cursor! }));
    }
    expect(mine("behind-", resumedIds(carried)).sort()).toEqual(behind);
    expect(mine("wait-", resumedIds([...fromOldest, ...carried]))).toEqual([]);
  });

  it("refuses a cursor it did not issue", async () => {
    await expect(sweep(depsAt(anHourOn), { cursor: "nope" })).rejects.toThrow(/cursor/);
  });
});
