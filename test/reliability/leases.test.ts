import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LeaseHeldError } from "../../lib/core/errors.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";
import { cleanup, events, library, tempDataDir, testEnv } from "../support/cli.ts";
import { connectStore } from "../support/store.ts";
import { gate, harness, hooked } from "./support/harness.ts";
import { crashedRun, listedStatus } from "./support/runs.ts";
import { tally } from "./support/tally.ts";

/**
 * Two resumers in the moments the log alone cannot see: one that read the log
 * just before another finished the run, and one that arrives while another
 * holds the lease but has not started executing yet (same process, as in a server).
 */
const dir = tempDataDir("reliability-leases");
let store: EventStore;
let close: () => Promise<void>;
let races = 0;

beforeAll(async () => {
  ({ store, close } = await connectStore({ dataDir: dir, env: testEnv() }));
});
afterAll(async () => {
  tally("lease windows", { races });
  await close();
  await cleanup(dir);
});

/** A runlog whose store calls wait at a gate the first time `stop(method, earlier calls)` says so. */
function pausedAt(stop: (method: keyof EventStore, earlier: string[]) => boolean) {
  const paused = gate();
  const go = gate();
  const calls: string[] = [];
  let held = false;
  const slow = harness(
    hooked(store, async (method) => {
      const hold = !held && stop(method, calls);
      calls.push(method);
      if (!hold) return;
      held = true;
      paused.open();
      await go.opened;
    }),
    dir,
  );
  return { runlog: slow.runlog, paused: paused.opened, go: go.open };
}

describe("a resumer that read the log just before another resumer completed the run", () => {
  it("leaves one generation, and a head that agrees with the log", async () => {
    await crashedRun(dir, "stale-reader", { text: "Done", stop: "stop" });
    const late = pausedAt((method) => method === "getHead");
    const lateResume = late.runlog.resume({ runId: "stale-reader" }).catch((error: unknown) => error);
    await late.paused;
    const { runlog: lib } = await library(dir);
    expect(await lib.resume({ runId: "stale-reader" })).toMatchObject({ status: "completed" });
    late.go();
    const answer = await lateResume;
    if (answer instanceof Error) expect(answer).toBeInstanceOf(LeaseHeldError);
    else expect(answer).toMatchObject({ status: "completed", resume: { resumed: false } });
    races++;
    // Killed before generation 1 did anything: that generation was executed, none opened.
    expect((await events(dir, "stale-reader")).filter((e) => e.type === "resumed")).toHaveLength(0);
    expect(await listedStatus(dir, "stale-reader")).toBe("completed");
  });
});

describe("a resumer in the same process while another holds the lease but has not begun executing", () => {
  it("is refused; the holder goes on and completes, and the head agrees with the log", async () => {
    await crashedRun(dir, "claim-window", { text: "Done", stop: "stop" });
    // The holder has claimed the lease and waits before it reads the log to write its `resumed` event.
    const holder = pausedAt((method, earlier) => method === "read" && earlier.includes("claimLease"));
    const holding = holder.runlog.resume({ runId: "claim-window" });
    await holder.paused;
    const { runlog: lib } = await library(dir);
    const second = await lib.resume({ runId: "claim-window" }).catch((error: unknown) => error);
    holder.go();
    expect(second).toBeInstanceOf(LeaseHeldError);
    expect((second as Error).message).toMatch(/being executed by|claimed it first/);
    expect(await holding).toMatchObject({ status: "completed", resume: { resumed: true } });
    races++;
    expect((await events(dir, "claim-window")).filter((e) => e.type === "resumed")).toHaveLength(0);
    expect(await listedStatus(dir, "claim-window")).toBe("completed");
  });
});
