import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countingNewGiveUps } from "../../functions/observability/giveUps.ts";
import { BUILT_IN_AGENTS } from "../../lib/agents/builtIn.ts";
import { agentRegistry } from "../../lib/agents/registry.ts";
import type { NewEvent } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";
import { AWS_SWEEP } from "../../lib/runtime/aws/handlerDeps.ts";
import { LocalOrchestrator } from "../../lib/runtime/local/orchestrator.ts";
import { modelResolver } from "../../lib/runtime/models.ts";
import type { ControlDeps, StepDeps } from "../../lib/steps/deps.ts";
import { LogCache } from "../../lib/steps/logCache.ts";
import { sweep } from "../../lib/steps/sweep.ts";
import { unstoredWork } from "../../lib/steps/unstoredWork.ts";
import { tempDataDir, testEnv } from "../support/cli.ts";
import { connectStore } from "../support/store.ts";

const dataDir = tempDataDir("give-ups");
const HOUR = 3_600_000;
/** The sweeper looks at the world an hour from now, so every run written here is idle. */
const later = () => new Date(Date.now() + HOUR);
let store: EventStore;
let close: () => Promise<void>;
let deps: ControlDeps;

const failedAgain: NewEvent = {
  type: "model_failed",
  error: { name: "ModelUnavailableError", message: "overloaded" },
  retryable: true,
};
const resumed = (generation: number): NewEvent => ({
  type: "resumed",
  generation,
  kind: "call_model",
  description: "a user message has no answer yet: call the model",
});

/** A run whose executor died after its fifth automatic resume failed again: the sweep gives up on it. */
async function outOfResumes(runId: string) {
  const { pid } = spawnSync(process.execPath, ["-e", ""]);
  const owner = `local:${hostname()}:${pid}:dead0001`;
  const at = new Date(Date.now() + HOUR - 10_000);
  const first = stamp(
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "go" },
    1,
    at,
  );
  if (first.type !== "run_started") throw new Error("unreachable");
  await store.createRun(first, { owner, until: Date.now() + 30_000 });
  const more = [...[2, 3, 4, 5, 6].map(resumed), failedAgain];
  for (const [i, event] of more.entries()) await store.append(runId, stamp(event, i + 2, at));
  const head = await store.getHead(runId);
  await store.claimLease(runId, head!.lease!, head!.leaseVersion, { count: 5, lastAt: Date.now() });
}

/** Sweep as the sweeper function does (running and interrupted heads), telling `told` of each give-up. */
async function sweepTelling(told: string[], counted: boolean) {
  const observer = { appended: () => {}, gaveUp: (runId: string) => told.push(runId) };
  const swept = { ...deps, observer };
  await sweep(counted ? countingNewGiveUps(swept) : swept, AWS_SWEEP);
}

beforeAll(async () => {
  const connected = await connectStore({ dataDir, env: testEnv() });
  store = connected.store;
  close = connected.close;
  const steps: StepDeps = {
    store,
    logs: new LogCache(store),
    unstored: unstoredWork(),
    agents: agentRegistry({ dataDir }, BUILT_IN_AGENTS),
    models: modelResolver(),
    clock: { now: later },
    faults: { reached: () => {} },
  };
  const orchestrator = new LocalOrchestrator({
    deps: () => steps,
    store,
    leaseMs: 30_000,
    retryIntervalMs: 5,
  });
  deps = { ...steps, orchestrator, leaseMs: 30_000 };
});

afterAll(async () => {
  await close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the sweeper's give-ups", () => {
  it("are told once per run, not once per sweep that meets the given-up run again", async () => {
    await outOfResumes("once");
    const told: string[] = [];
    for (let i = 0; i < 3; i++) await sweepTelling(told, true);
    expect(told).toEqual(["once"]);
    expect((await store.getHead("once"))?.status).toBe("interrupted");
  });

  it("were told at least every sweep without it (the first twice: listed running, then rested interrupted)", async () => {
    await outOfResumes("again");
    const told: string[] = [];
    for (let i = 0; i < 3; i++) await sweepTelling(told, false);
    expect(told.filter((runId) => runId === "again").length).toBeGreaterThanOrEqual(3);
  });
});
