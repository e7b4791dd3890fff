import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AFTER_FIX, toRunlogError } from "../../../lib/adapters/sqlite/errors.ts";
import { BUILT_IN_AGENTS } from "../../../lib/agents/builtIn.ts";
import { agentRegistry } from "../../../lib/agents/registry.ts";
import { Runlog } from "../../../lib/api/runlog.ts";
import { PermanentError, RetryableError, RunCancelledError, StaleError } from "../../../lib/core/errors.ts";
import { stamp } from "../../../lib/core/storedEvents.ts";
import type { EventStore } from "../../../lib/ports/eventStore.ts";
import type { Model, ModelRequest } from "../../../lib/ports/model.ts";
import { LocalOrchestrator } from "../../../lib/runtime/local/orchestrator.ts";
import type { StepDeps } from "../../../lib/steps/deps.ts";
import { LogCache } from "../../../lib/steps/logCache.ts";
import { unstoredWork } from "../../../lib/steps/unstoredWork.ts";
import { tempDataDir, testEnv } from "../../support/cli.ts";
import { connectStore } from "../../support/store.ts";

const dataDir = tempDataDir("local-orchestrator");
let store: EventStore;
let close: () => Promise<void>;
const HOUR = 3_600_000;

beforeAll(async () => {
  ({ store, close } = await connectStore({ dataDir, env: testEnv() }));
});
afterAll(async () => {
  await close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A model whose call waits until it is aborted (or `answer`ed), telling the test when it is under way. */
function heldModel() {
  let called!: (request: ModelRequest) => void;
  const underWay = new Promise<ModelRequest>((resolve) => {
    called = resolve;
  });
  let answer = () => {};
  const model: Model = {
    spec: "held:model",
    call: (request) =>
      new Promise((resolve, reject) => {
        answer = () => resolve({ text: "done", toolCalls: [], stop: "stop" });
        request.signal?.addEventListener("abort", () => reject(request.signal?.reason), { once: true });
        called(request);
      }),
  };
  return { model, underWay, answer: () => answer() };
}

/** A runlog over the test's store (as given, or wrapped), its model held, the cancel poll as given. */
function compose(
  options: {
    store?: EventStore;
    leaseMs?: number;
    cancelPollMs?: number;
    executionTimeoutSeconds?: number;
  } = {},
) {
  const held = heldModel();
  const used = options.store ?? store;
  const deps: StepDeps = {
    store: used,
    logs: new LogCache(used),
    unstored: unstoredWork(),
    agents: agentRegistry({ dataDir }, BUILT_IN_AGENTS),
    models: () => held.model,
    clock: { now: () => new Date() },
    faults: { reached: () => {} },
  };
  const leaseMs = options.leaseMs ?? 30_000;
  const orchestrator = new LocalOrchestrator({
    deps: () => deps,
    store: used,
    leaseMs,
    retryIntervalMs: 5,
    cancelPollMs: options.cancelPollMs ?? HOUR,
    ...(options.executionTimeoutSeconds === undefined
      ? {}
      : { executionTimeoutSeconds: options.executionTimeoutSeconds }),
  });
  const runlog = new Runlog({ ...deps, orchestrator, leaseMs, ids: { runId: () => "unused" } });
  return { held, orchestrator, runlog };
}

/** The store, with renewLease answered by `renew` (the real one when it returns undefined). */
function renewing(renew: (call: number) => Promise<boolean> | undefined): EventStore {
  let calls = 0;
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === "renewLease") {
        return (...args: Parameters<EventStore["renewLease"]>) =>
          renew(++calls) ?? target.renewLease(...args);
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

const start = (runlog: Runlog, runId: string) =>
  runlog.start({ agent: "demo", input: "go", model: "held:model", runId });

describe("LocalOrchestrator: a cancel", () => {
  it("stops the execution holding the run at once: its model call is aborted", async () => {
    // The poll would not look for an hour: only the cancel's own stop can end the call.
    const { held, runlog } = compose();
    const run = start(runlog, "cancel-stop");
    const request = await held.underWay;
    await runlog.cancel("cancel-stop", { by: "ops", reason: "wrong input" });
    await expect(run).resolves.toMatchObject({ status: "cancelled" });
    expect(request.signal?.reason).toBeInstanceOf(RunCancelledError);
    expect(request.signal?.reason).toMatchObject({
      message: "run cancel-stop was cancelled by ops: wrong input",
    });
    expect((await store.read("cancel-stop")).map((e) => e.type)).toEqual(["run_started", "cancelled"]);
  }, 20_000);

  it("written by another process is seen by the poll, even after a look failed", async () => {
    let failures = 0;
    // Armed once the run is under way: the read that fails is the cancel poll's, not the start's.
    let armed = false;
    const flaky = new Proxy(store, {
      get(target, property, receiver) {
        if (property === "read" && armed && failures === 0) {
          return async () => {
            failures++;
            throw new RetryableError("read failed (test)");
          };
        }
        return Reflect.get(target, property, receiver);
      },
    });
    const { held, runlog } = compose({ store: flaky, cancelPollMs: 20 });
    const run = start(runlog, "cancel-poll");
    const request = await held.underWay;
    armed = true;
    // As another process would: the cancel in the log, and no stop this process hears of.
    await store.append("cancel-poll", stamp({ type: "cancelled", by: "elsewhere" }, 2, new Date()));
    await expect(run).resolves.toMatchObject({ status: "cancelled" });
    expect(failures).toBe(1);
    expect(request.signal?.reason).toBeInstanceOf(RunCancelledError);
  }, 20_000);
});

describe("LocalOrchestrator: a failed execution", () => {
  it("says in its message what failed and where: a full disk, naming the store's file", async () => {
    // What the SQLite store throws when its disk is full (test/adapters/sqlite/errors.test.ts).
    const full = Object.assign(new Error("database or disk is full"), {
      code: "ERR_SQLITE_ERROR",
      errcode: 13,
    });
    const noRoom = new Proxy(store, {
      get(target, property, receiver) {
        if (property === "append") {
          return async (runId: string, event: { seq: number }) => {
            throw toRunlogError(full, `append seq ${event.seq} of run ${runId}`, "/data/.runlog/runlog.db", {
              runId,
              seq: event.seq,
              afterFix: AFTER_FIX.resume,
            });
          };
        }
        return Reflect.get(target, property, receiver);
      },
    });
    const { held, runlog } = compose({ store: noRoom });
    const run = start(runlog, "disk-full");
    await held.underWay;
    held.answer();
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetryableError);
    expect((error as Error).message).toBe(
      "run disk-full: execution of generation 1 failed: append seq 2 of run disk-full: /data/.runlog/runlog.db: the disk holding it is full: free space there, then resume the run (database or disk is full)",
    );
    expect((error as Error).cause).toBeInstanceOf(PermanentError);
  }, 20_000);
});

describe("LocalOrchestrator: the execution timeout", () => {
  it("ends an execution at the definition's TimeoutSeconds and stops the model call under way", async () => {
    const { held, runlog } = compose({ executionTimeoutSeconds: 1 });
    const run = start(runlog, "timed-out");
    const request = await held.underWay;
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetryableError);
    expect((error as Error).message).toBe(
      "run timed-out: execution of generation 1 timed out (the definition's TimeoutSeconds); the run can be resumed",
    );
    // The step under way was stopped with the execution, so it writes nothing after it.
    expect(request.signal?.reason).toBe(error);
    expect((await store.read("timed-out")).map((e) => e.type)).toEqual(["run_started"]);
  }, 20_000);
});

describe("LocalOrchestrator: its lease", () => {
  it("answered `false` (someone else's now) stops the execution with a StaleError naming the owner", async () => {
    const { held, runlog } = compose({ store: renewing(async () => false), leaseMs: 300 });
    const run = start(runlog, "lease-lost");
    const request = await held.underWay;
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StaleError);
    expect((error as Error).message).toMatch(/^run lease-lost: its lease is no longer local:.+'s/);
    expect(request.signal?.reason).toBe(error);
    // Nothing was written after the stop.
    expect((await store.read("lease-lost")).map((e) => e.type)).toEqual(["run_started"]);
  }, 20_000);

  it("that cannot be renewed for a lease time stops the execution, the store's error as cause", async () => {
    const cause = new RetryableError("the store is down (test)");
    const { held, runlog } = compose({ store: renewing(() => Promise.reject(cause)), leaseMs: 300 });
    const run = start(runlog, "lease-lapsed");
    await held.underWay;
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StaleError);
    expect((error as Error).message).toMatch(/could not renew its lease for \d+ ms/);
    expect((error as Error).cause).toBe(cause);
  }, 20_000);

  it("whose renewal failed once is renewed at the next tick, and the execution goes on", async () => {
    let renewed!: () => void;
    const renewedAfterFailure = new Promise<void>((resolve) => {
      renewed = resolve;
    });
    const { held, runlog } = compose({
      store: renewing((call) => {
        if (call === 1) return Promise.reject(new RetryableError("blip (test)"));
        if (call === 2) setImmediate(renewed);
        return undefined;
      }),
      leaseMs: 300,
    });
    const run = start(runlog, "lease-blip");
    await held.underWay;
    await renewedAfterFailure;
    held.answer();
    await expect(run).resolves.toMatchObject({ status: "completed" });
  }, 20_000);
});

describe("LocalOrchestrator.executionOf and stop", () => {
  it("says running for an owner named or executing here, ended after, none for one never named", async () => {
    const { held, orchestrator, runlog } = compose();
    const named = orchestrator.leaseOwnerFor();
    // Its claimer, in this process, is about to execute it: nobody else may start that generation.
    expect(await orchestrator.executionOf(named)).toBe("running");
    expect(await orchestrator.executionOf(`local:${hostname()}:${process.pid}:never001`)).toBe("none");
    // Named is still alive for a resumer: its execution is about to begin.
    expect(await orchestrator.isAlive(named)).toBe(true);
    const run = start(runlog, "states");
    await held.underWay;
    const owner = (await store.getHead("states"))!.lease!.owner;
    expect(await orchestrator.executionOf(owner)).toBe("running");
    held.answer();
    await run;
    expect(await orchestrator.executionOf(owner)).toBe("ended");
    expect(await orchestrator.stop(owner, "late")).toBe(false);
  }, 20_000);

  it("says none for owners that are not local executions, running for another host's", async () => {
    const { orchestrator } = compose();
    expect(await orchestrator.executionOf("sfn:r1-g1")).toBe("none");
    expect(await orchestrator.executionOf("local:another-host:1:abcd0001")).toBe("running");
    expect(await orchestrator.executionOf(`local:${hostname()}:${process.pid}:never001`)).toBe("none");
    expect(await orchestrator.stop("sfn:r1-g1", "no")).toBe(false);
  });

  it("checks a pid only in the PID namespace it came from: another container with this host name is alive whatever its pid", async () => {
    const { orchestrator } = compose();
    const own = orchestrator.leaseOwnerFor();
    const place = own.split(":")[1]!;
    const gone = spawnSync(process.execPath, ["-e", "0"]).pid;
    // This process's own place, the pid gone: none, a crashed process's lease is free at once.
    expect(await orchestrator.executionOf(`local:${place}:${gone}:abcd0001`)).toBe("none");
    expect(await orchestrator.isAlive(`local:${place}:${gone}:abcd0001`)).toBe(false);
    if (!existsSync("/proc/self/ns/pid")) return; // no PID namespaces to tell apart on this system
    expect(place).toMatch(new RegExp(`^${hostname()}/\\d+$`));
    // The same host name in another namespace (a container with host networking): its pid means
    // nothing here, so its lease time decides, never a takeover of a live execution.
    const elsewhere = `local:${hostname()}/1:${gone}:abcd0002`;
    expect(await orchestrator.executionOf(elsewhere)).toBe("running");
    expect(await orchestrator.isAlive(elsewhere)).toBe(true);
  });
});
