import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILT_IN_AGENTS } from "../../lib/agents/builtIn.ts";
import { agentRegistry } from "../../lib/agents/registry.ts";
import type { NewEvent } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { AutoResumes, EventStore } from "../../lib/ports/eventStore.ts";
import { LocalOrchestrator } from "../../lib/runtime/local/orchestrator.ts";
import { modelResolver } from "../../lib/runtime/models.ts";
import type { ControlDeps, StepDeps } from "../../lib/steps/deps.ts";
import { LogCache } from "../../lib/steps/logCache.ts";
import { resumeRun } from "../../lib/steps/resume.ts";
import { sweep } from "../../lib/steps/sweep.ts";
import { recoverRun } from "../../lib/steps/sweepCandidate.ts";
import { unstoredWork } from "../../lib/steps/unstoredWork.ts";
import { tempDataDir, testEnv } from "../support/cli.ts";
import { connectStore } from "../support/store.ts";

const dataDir = tempDataDir("sweep");
const HOUR = 3_600_000;
/** The sweeper looks at the world an hour from now, so every run written by this test is idle. */
const later = () => new Date(Date.now() + HOUR);
let store: EventStore;
let close: () => Promise<void>;
let deps: ControlDeps;

/** A lease owner naming this host and a process that has exited: its executor died. */
function deadOwner(): string {
  const { pid } = spawnSync(process.execPath, ["-e", ""]);
  return `local:${hostname()}:${pid}:dead0001`;
}

/** Write a run as an executor would have left it: the lease taken, then events appended. */
async function leftBehind(runId: string, owner: string, more: NewEvent[] = [], at = new Date()) {
  const first = stamp(
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "go" },
    1,
    at,
  );
  if (first.type !== "run_started") throw new Error("unreachable");
  await store.createRun(first, { owner, until: Date.now() + 30_000 });
  for (const [i, event] of more.entries()) await store.append(runId, stamp(event, i + 2, at));
}

/** Give the head the automatic-resume record the sweeper's resumes would have left (with a claim). */
async function sweptBefore(runId: string, record: AutoResumes) {
  const head = await store.getHead(runId);
  await store.claimLease(runId, head!.lease!, head!.leaseVersion, record);
}

/**
 * A model call that failed: what a resumed generation leaves when it ran and failed again (a log
 * that ends at a `resumed` is a generation never executed, which a sweep completes, not resumes).
 */
const failedAgain: NewEvent = {
  type: "model_failed",
  error: { name: "ModelUnavailableError", message: "overloaded" },
  retryable: true,
};
/** After the sweeper's last claim, before the sweep's clock (`later`): when its resume ran. */
const ranAfterClaim = () => new Date(Date.now() + HOUR - 10_000);

const resumed = (generation: number): NewEvent => ({
  type: "resumed",
  generation,
  kind: "call_model",
  description: "a user message has no answer yet: call the model",
});

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

describe("sweep", () => {
  it("tells its observer about a run it gives up on (the AWS functions count it)", async () => {
    await leftBehind("told", deadOwner(), [...[2, 3, 4, 5, 6].map(resumed), failedAgain], ranAfterClaim());
    await sweptBefore("told", { count: 5, lastAt: Date.now() });
    const told: [string, number][] = [];
    const observer = {
      appended: () => {},
      gaveUp: (runId: string, resumes: number) => told.push([runId, resumes]),
    };
    const outcome = await recoverRun({ ...deps, observer }, "told");
    expect(outcome).toMatchObject({ resumed: false, why: expect.stringMatching(/gave up after 5 resumes/) });
    expect(told).toEqual([["told", 5]]);
  });

  it("resumes a run whose executor died and leaves alone what it must not touch", async () => {
    await leftBehind("dead", deadOwner());
    await leftBehind("alive", "local:another-host:1:live0001");
    await store.renewLease("alive", { owner: "local:another-host:1:live0001", until: Date.now() + 2 * HOUR });
    await leftBehind("finished", deadOwner(), [
      { type: "model_response", text: "Done", toolCalls: [], stop: "stop" },
    ]);
    await leftBehind(
      "hopeless",
      deadOwner(),
      [...[2, 3, 4, 5, 6].map(resumed), failedAgain],
      ranAfterClaim(),
    );
    await sweptBefore("hopeless", { count: 5, lastAt: Date.now() });
    await leftBehind("backoff", deadOwner(), [resumed(2), failedAgain], ranAfterClaim());
    await sweptBefore("backoff", { count: 1, lastAt: Date.now() + HOUR - 30_000 });
    const finishedLog = await store.read("finished");

    const report = await sweep(deps);

    expect(report.examined).toBe(5);
    expect(report.failed).toEqual([]);
    // Its log ends at generation 1's opening, which never ran: the sweep executes that generation.
    expect(report.resumed).toEqual([{ runId: "dead", generation: 1, kind: "call_model" }]);
    const why = Object.fromEntries(report.skipped.map((s) => [s.runId, s.why]));
    expect(why.alive).toMatch(/being executed by local:another-host/);
    expect(why.finished).toBe("not resumable: completed");
    expect(why.hopeless).toMatch(/gave up after 5 resumes/);
    expect(why.backoff).toMatch(/resume 2 is due at/);

    // The dead run went on to the end of the demo, side effects and all.
    const log = await store.read("dead");
    expect(log.at(-1)).toMatchObject({ type: "model_response", stop: "stop" });
    expect(log.filter((e) => e.type === "resumed")).toHaveLength(0);
    expect(readFileSync(join(dataDir, "notes.txt"), "utf8")).toMatch(/Pack sunglasses/);
    expect((await store.getHead("dead"))?.status).toBe("completed");
    // What it skipped, it did not write to; the run it gave up on says so in its log, once.
    expect(await store.read("finished")).toEqual(finishedLog);
    const hopeless = await store.read("hopeless");
    expect(hopeless.length).toBe(8);
    expect(hopeless.at(-1)).toMatchObject({ type: "given_up", resumes: 5 });
  });

  it("waits until a run has been idle long enough: a recent one is not even read (the bound is the query's)", async () => {
    await leftBehind("recent", deadOwner());
    const report = await sweep(deps, { staleAfterMs: 2 * HOUR });
    expect(report.resumed).toEqual([]);
    expect(report.skipped.find((s) => s.runId === "recent")).toBeUndefined();
    expect(report.complete).toBe(true);
    expect((await store.read("recent")).length).toBe(1);
  });

  it("gives the next automatic resume once its growing delay has passed", async () => {
    await leftBehind("patient", deadOwner(), [resumed(2), resumed(3), failedAgain], ranAfterClaim());
    await sweptBefore("patient", { count: 2, lastAt: Date.now() + HOUR - 90_000 });
    const early = await recoverRun(deps, "patient");
    expect(early).toMatchObject({ resumed: false, why: expect.stringMatching(/resume 3 is due at/) });
    const due = await recoverRun(deps, "patient", { backoffMs: 40_000 });
    expect(due).toEqual({ runId: "patient", resumed: true, generation: 4, kind: "call_model" });
  });
});

describe("the automatic-resume budget", () => {
  it("counts only the sweeper's own resumes: a person's leaves it alone, a new message renews it", async () => {
    const past = Date.now() - HOUR;
    await leftBehind("budget", deadOwner());
    await sweptBefore("budget", { count: 4, lastAt: past });
    // A person's resume: the run goes on to its end, and the budget is still 4 used of 5.
    // (Its log ends at generation 1's opening, never executed: resuming executes that generation.)
    expect(await resumeRun(deps, { runId: "budget" })).toMatchObject({ resumed: true, generation: 1 });
    expect((await store.getHead("budget"))?.autoResumes).toEqual({ count: 4, lastAt: past });
    const at = later().getTime();
    await leftBehind("budget-used", deadOwner());
    await sweptBefore("budget-used", { count: 4, lastAt: past });
    expect(await recoverRun(deps, "budget-used")).toMatchObject({ resumed: true, generation: 1 });
    expect((await store.getHead("budget-used"))?.autoResumes?.count).toBe(5);
    expect((await store.getHead("budget-used"))?.autoResumes?.lastAt).toBeGreaterThanOrEqual(at);
    // A new message gives the run a fresh budget.
    expect(await resumeRun(deps, { runId: "budget-used", input: "and tomorrow?" })).toMatchObject({
      resumed: true,
    });
    expect((await store.getHead("budget-used"))?.autoResumes).toEqual({ count: 0 });
  });
});

describe("recoverRun", () => {
  it("resumes a run whose execution just failed without waiting for it to go stale", async () => {
    await leftBehind("failed-now", deadOwner(), [], later());
    const outcome = await recoverRun(deps, "failed-now");
    expect(outcome).toEqual({ runId: "failed-now", resumed: true, generation: 1, kind: "call_model" });
  });

  it("skips a run cancelled while it was being resumed, as the functions answer it, not as a failure", async () => {
    await leftBehind("cancel-race", deadOwner(), [failedAgain], later());
    // A person cancels just as the sweeper writes its `resumed`: the cancel takes that seq.
    const cancelling = Object.create(store) as EventStore;
    cancelling.append = async (runId, event) => {
      if (event.type === "resumed") {
        const cancel: NewEvent = { type: "cancelled", by: "ana", reason: "not needed" };
        await store.append(runId, stamp(cancel, event.seq, later()));
      }
      return store.append(runId, event);
    };
    const outcome = await recoverRun(
      { ...deps, store: cancelling, logs: new LogCache(cancelling) },
      "cancel-race",
    );
    expect(outcome).toMatchObject({
      runId: "cancel-race",
      resumed: false,
      why: expect.stringContaining("cancelled by ana"),
    });
  });

  it("says so for a run that does not exist", async () => {
    expect(await recoverRun(deps, "nobody")).toEqual({ runId: "nobody", resumed: false, why: "no such run" });
  });
});
