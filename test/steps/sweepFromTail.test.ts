import { afterAll, describe, expect, it } from "vitest";
import { BUILT_IN_AGENTS } from "../../lib/agents/builtIn.ts";
import { agentRegistry } from "../../lib/agents/registry.ts";
import type { NewEvent, RunEvent } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { AutoResumes, EventStore } from "../../lib/ports/eventStore.ts";
import type { ExecutionInput } from "../../lib/ports/runtime.ts";
import type { ControlDeps } from "../../lib/steps/deps.ts";
import { LogCache } from "../../lib/steps/logCache.ts";
import { sweep } from "../../lib/steps/sweep.ts";
import { recoverRun } from "../../lib/steps/sweepCandidate.ts";
import { unstoredWork } from "../../lib/steps/unstoredWork.ts";
import { cleanup, tempDataDir, testEnv } from "../support/cli.ts";
import { modelsNeverCalled, recordingOrchestrator } from "../support/controlDeps.ts";
import { counted } from "../support/countingStore.ts";
import { connectStore } from "../support/store.ts";

/**
 * The sweeper reads heads and tails only: what a candidate costs does not grow with its run, the
 * automatic-resume count and back-off come from the head, and a run it will not resume gets its
 * resting status written to its head, so later sweeps do not read it again.
 */
const HOUR = 3_600_000;
/** The sweeper looks at the world an hour from now, so every run written here is idle. */
const LATER = new Date(Date.now() + HOUR);
const AT = new Date();
const DEAD = "local-dead-owner";
const dirs: string[] = [];
const closers: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const close of closers) await close();
  for (const dir of dirs) await cleanup(dir);
});

/** A store of its own for each test: a sweep sees every `running` head in it. */
async function freshStore(): Promise<EventStore> {
  const dir = tempDataDir("sweep-tail");
  dirs.push(dir);
  const { store, close } = await connectStore({ dataDir: dir, env: testEnv() });
  closers.push(close);
  return store;
}

/** Deps whose executors are all gone; executions are recorded, not run. */
function depsOn(store: EventStore, executed: ExecutionInput[] = []): ControlDeps {
  const orchestrator = recordingOrchestrator(executed);
  return {
    store,
    logs: new LogCache(store),
    unstored: unstoredWork(),
    agents: agentRegistry({ dataDir: "unused" }, BUILT_IN_AGENTS),
    models: modelsNeverCalled,
    clock: { now: () => LATER },
    faults: { reached: () => {} },
    orchestrator,
    leaseMs: 30_000,
  };
}

const turn = (n: number): NewEvent[] => [
  {
    type: "model_response",
    text: "",
    toolCalls: [{ id: `call-${n}`, name: "get_weather", arguments: '{"city":"Faro"}' }],
    stop: "tool_calls",
    // As CallModel writes it: each turn names its model, so a tail knows the model in force.
    model: "scripted:demo",
  },
  { type: "tool_started", callId: `call-${n}`, name: "get_weather" },
  { type: "tool_result", callId: `call-${n}`, name: "get_weather", content: "sunny", isError: false },
];

/** A run as an executor that died left it: the lease taken, `turns` turns, then `ending`. */
async function leftBehind(store: EventStore, runId: string, turns: number, ending: NewEvent[], at = AT) {
  const events: NewEvent[] = [
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "go" },
  ];
  for (let n = 0; n < turns; n++) events.push(...turn(n));
  events.push(...ending);
  const stamped: RunEvent[] = events.map((event, i) => stamp(event, i + 1, at, 1));
  await store.createRun(stamped[0] as Extract<RunEvent, { type: "run_started" }>, {
    owner: DEAD,
    until: Date.now() + 30_000,
  });
  for (let from = 1; from < stamped.length; from += 200) {
    await Promise.all(stamped.slice(from, from + 200).map((event) => store.append(runId, event)));
  }
  return stamped.length;
}

/** The last call of a turn started and has no result: resuming recovers it. */
const interruptedCall = (n: number): NewEvent[] => turn(n).slice(0, 2);
const finalAnswer: NewEvent[] = [{ type: "model_response", text: "Done", toolCalls: [], stop: "stop" }];

/** Set the head's automatic-resume record as a resume by the sweeper would have (with a claim). */
async function swept(store: EventStore, runId: string, record: AutoResumes) {
  const head = await store.getHead(runId);
  await store.claimLease(runId, { owner: DEAD, until: Date.now() + 30_000 }, head!.leaseVersion, record);
}

describe("the sweeper from the tail", () => {
  it("costs the same store calls on a 6-event run as on a 3,000-event one", {
    timeout: 120_000,
  }, async () => {
    const store = await freshStore();
    const shortLength = await leftBehind(store, "short", 1, interruptedCall(1));
    const longLength = await leftBehind(store, "long", 999, interruptedCall(999));
    expect([shortLength, longLength]).toEqual([6, 3_000]);

    const cost = async (runId: string) => {
      const { store: countedStore, count } = counted(store);
      const executed: ExecutionInput[] = [];
      const outcome = await recoverRun(depsOn(countedStore, executed), runId);
      expect(outcome).toMatchObject({ resumed: true, generation: 2, kind: "recover_tools" });
      expect(executed).toHaveLength(1);
      return count;
    };
    const short = await cost("short");
    const long = await cost("long");
    expect(long).toEqual(short);
    expect(long.calls.read ?? 0).toBe(0);
    expect(long.eventsRead).toBeLessThan(10);
  });

  it("writes the resting status of a run it gave up on, and does not read it again", async () => {
    const store = await freshStore();
    await leftBehind(store, "gave-up", 2, interruptedCall(2));
    await swept(store, "gave-up", { count: 5, lastAt: AT.getTime() });

    const first = await sweep(depsOn(store));
    expect(first.skipped).toEqual([
      { runId: "gave-up", why: expect.stringMatching(/gave up after 5 resumes/) },
    ]);
    const head = await store.getHead("gave-up");
    expect(head).toMatchObject({ status: "interrupted", lastSeq: 10 });
    expect(head?.lease).toBeUndefined();
    // The log says it gave up (the lifecycle's RunGivenUp comes from this marker), and nothing else.
    const log = await store.read("gave-up");
    expect(log).toHaveLength(10);
    expect(log.at(-1)).toMatchObject({ type: "given_up", seq: 10, resumes: 5 });

    const { store: countedStore, count } = counted(store);
    const second = await sweep(depsOn(countedStore));
    expect(second).toEqual({
      examined: 0,
      resumed: [],
      skipped: [],
      failed: [],
      complete: true,
      approvals: { examined: 0, expired: [], failed: [], complete: true },
    });
    // One listing of each swept status (running, waiting), one of the paused heads (for approvals that expire).
    expect(count.calls).toEqual({ listRuns: 3 });
  });

  it("repairs the head of a run whose tail is final or waits for a person", async () => {
    const store = await freshStore();
    await leftBehind(store, "finished", 1, finalAnswer);
    await leftBehind(store, "waiting", 0, [
      {
        type: "model_response",
        text: "",
        toolCalls: [{ id: "mail", name: "send_email", arguments: '{"to":"a@b.c","subject":"s"}' }],
        approvals: ["mail"],
        stop: "tool_calls",
      },
    ]);
    const logs = { finished: await store.read("finished"), waiting: await store.read("waiting") };

    const report = await sweep(depsOn(store));
    expect(report.resumed).toEqual([]);
    const why = Object.fromEntries(report.skipped.map((s) => [s.runId, s.why]));
    expect(why).toEqual({
      finished: "not resumable: completed",
      waiting: "not resumable: awaiting_approval",
    });
    expect(await store.getHead("finished")).toMatchObject({ status: "completed", lastSeq: 5 });
    expect(await store.getHead("waiting")).toMatchObject({ status: "paused", lastSeq: 3 });
    // The final log is left as it was; the waiting one gains the pause its dead execution never
    // marked (the lifecycle's RunPaused comes from it), naming the call that waits.
    expect(await store.read("finished")).toEqual(logs.finished);
    expect(await store.read("waiting")).toEqual([
      ...logs.waiting,
      expect.objectContaining({ type: "paused", seq: 3, calls: [expect.objectContaining({ id: "mail" })] }),
    ]);
    expect((await sweep(depsOn(store))).examined).toBe(0);
  });

  it("leaves the head to a resumer that claimed the run between its read and its write", async () => {
    const store = await freshStore();
    await leftBehind(store, "raced", 1, finalAnswer);
    const person = { owner: "local:elsewhere:1:person01", until: LATER.getTime() + 30_000 };
    // The person's claim lands just before the sweeper's, which then finds the version moved on.
    const racing = new Proxy(store, {
      get(target, property, receiver) {
        if (property !== "claimLease") return Reflect.get(target, property, receiver).bind(target);
        return async (runId: string, lease: typeof person, version: number) => {
          await target.claimLease(runId, person, version);
          return target.claimLease(runId, lease, version);
        };
      },
    });
    const report = await sweep(depsOn(racing));
    expect(report.failed).toEqual([]);
    expect(report.skipped).toEqual([{ runId: "raced", why: "not resumable: completed" }]);
    expect(await store.getHead("raced")).toMatchObject({ status: "running", lease: person });
  });

  it("takes the back-off from the head and counts its own resume there", async () => {
    const store = await freshStore();
    const lastAt = LATER.getTime() - 90_000;
    // Written after the sweeper's second resume claimed the run (a claim the log never followed
    // would not count: its process died before resuming anything).
    await leftBehind(store, "patient", 1, interruptedCall(1), new Date(lastAt + 1_000));
    await swept(store, "patient", { count: 2, lastAt });

    // The third resume waits 2 × 60 s after the second, which was 90 s ago.
    const early = await sweep(depsOn(store));
    expect(early.skipped).toEqual([
      { runId: "patient", why: `resume 3 is due at ${new Date(lastAt + 120_000).toISOString()}` },
    ]);
    expect((await store.getHead("patient"))?.status).toBe("running");

    const due = await sweep(depsOn(store), { backoffMs: 40_000 });
    expect(due.resumed).toEqual([{ runId: "patient", generation: 2, kind: "recover_tools" }]);
    expect((await store.getHead("patient"))?.autoResumes).toEqual({ count: 3, lastAt: LATER.getTime() });
  });
});
