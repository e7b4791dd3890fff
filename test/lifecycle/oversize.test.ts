import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUILT_IN_AGENTS } from "../../lib/agents/builtIn.ts";
import {
  entryBytes,
  type LifecycleEvent,
  LifecycleEventSchema,
  MAX_ENTRY_BYTES,
} from "../../lib/core/lifecycle.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";
import type { LifecycleBus } from "../../lib/ports/lifecycleBus.ts";
import { publishLifecycle } from "../../lib/steps/publishLifecycle.ts";
import { createTestRunlog, type TestRunlog } from "../../lib/testing/index.ts";
import { connectStore } from "../support/store.ts";

/**
 * A final answer larger than an EventBridge entry allows (256 KB): RunCompleted leaves the output
 * out and says where to read it (the run, the seq, and on AWS the API's URL of that event), so the
 * entry is accepted and the answer is not lost. Locally and through the AWS publisher alike.
 */
const BIG = "x".repeat(MAX_ENTRY_BYTES + 1000);
let local: TestRunlog;
let heard: LifecycleEvent[];
let store: EventStore;
let closeStore: () => Promise<void>;

beforeEach(async () => {
  heard = [];
  local = await createTestRunlog({
    agents: BUILT_IN_AGENTS,
    script: [{ text: BIG }],
    onLifecycle: (event) => {
      heard.push(event);
    },
  });
  ({ store, close: closeStore } = await connectStore({ dataDir: local.dataDir, env: {} }));
});
afterEach(async () => {
  await closeStore();
  await local.close();
});

const completed = (events: readonly LifecycleEvent[]) => {
  const found = events.find((event) => event.type === "runlog.RunCompleted");
  if (found?.type !== "runlog.RunCompleted") throw new Error("no RunCompleted");
  return found;
};

describe("RunCompleted with an output larger than an EventBridge entry", () => {
  it("locally: carries where to read the output instead of it, and the log there holds it", async () => {
    await local.runlog.start({ agent: "demo", input: "Write a lot", runId: "big" });
    const done = completed(heard);
    expect(done).not.toHaveProperty("output");
    expect(done).toMatchObject({ outputBytes: BIG.length, outputAt: { runId: "big", seq: done.seq } });
    expect(entryBytes(done)).toBeLessThanOrEqual(MAX_ENTRY_BYTES);
    expect(LifecycleEventSchema.parse(done)).toEqual(done);
    const [event] = await store.read("big", done.outputAt!.seq - 1);
    expect(event).toMatchObject({ type: "model_response", seq: done.seq, text: BIG });
  });

  it("on AWS: the publisher's entry links the API's route for that event, and fits", async () => {
    await local.runlog.start({ agent: "demo", input: "Write a lot", runId: "big-aws" });
    const put: LifecycleEvent[] = [];
    const bus: LifecycleBus = {
      put: async (events) => {
        // As EventBridge does: an entry over the limit is refused.
        const fits = events.findIndex((event) => entryBytes(event) > MAX_ENTRY_BYTES);
        const accepted = fits < 0 ? events : events.slice(0, fits);
        put.push(...accepted);
        return fits < 0 ? { published: events.length } : { published: fits, error: "entry too large" };
      },
    };
    const seqs = (await store.read("big-aws", 0)).map((event) => event.seq);
    const keys = seqs.map((seq) => ({ recordId: `r${seq}`, runId: "big-aws", seq }));
    const apiUrl = "https://api.example.com/prod/";
    expect(await publishLifecycle({ store, bus, options: { apiUrl } }, keys)).toEqual({});
    const done = completed(put);
    expect(done).not.toHaveProperty("output");
    expect(done.outputAt).toEqual({
      runId: "big-aws",
      seq: done.seq,
      url: `https://api.example.com/prod/runs/big-aws/events/${done.seq}`,
    });
  });

  it("an output that fits is carried whole, with no outputAt", async () => {
    const small = await createTestRunlog({
      agents: BUILT_IN_AGENTS,
      script: [{ text: "y".repeat(200 * 1024) }],
      onLifecycle: (event) => {
        heard.push(event);
      },
    });
    try {
      await small.runlog.start({ agent: "demo", input: "Write some", runId: "fits" });
      const done = completed(heard);
      expect(done.output).toHaveLength(200 * 1024);
      expect(done).not.toHaveProperty("outputAt");
    } finally {
      await small.close();
    }
  });
});
