import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { defineAgent } from "../../lib/agents/defineAgent.ts";
import { defineTool } from "../../lib/agents/defineTool.ts";
import { agentRegistry } from "../../lib/agents/registry.ts";
import type { NewEvent, RunEvent } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";
import type { StepDeps } from "../../lib/steps/deps.ts";
import { LogCache } from "../../lib/steps/logCache.ts";
import { runTool } from "../../lib/steps/runTool.ts";
import { unstoredWork } from "../../lib/steps/unstoredWork.ts";
import { tempDataDir, testEnv } from "../support/cli.ts";
import { counted } from "../support/countingStore.ts";
import { startDynalite } from "../support/dynalite.ts";
import { connectStore } from "../support/store.ts";

/**
 * A model response with K tool calls runs as K RunTool tasks at once, each in a Lambda of its own
 * (here: its own deps and log cache, trusting no cached tail), all appending to one run's log.
 * Every append is a conditional put; one that finds its seq taken is a lost seq race, billed like
 * a write. A batch of K calls must lose at most K in all, on either store.
 */
const AT = new Date("2026-01-01T00:00:00Z");

const agent = defineAgent({
  name: "wide",
  instructions: "Looks many things up at once.",
  tools: [
    defineTool({
      name: "look_up",
      description: "Looks a thing up.",
      parameters: z.object({ thing: z.string() }),
      run: ({ thing }) => `found ${thing}`,
    }),
  ],
  model: "scripted:demo",
});

/** One Lambda instance's deps: its own cache of the log, trusting nothing it holds as the tail. */
function lambdaDeps(store: EventStore): StepDeps {
  return {
    store,
    logs: new LogCache(store),
    unstored: unstoredWork(),
    agents: agentRegistry({ dataDir: "/tmp/runlog-wide" }, { wide: agent }),
    models: {
      resolve: () => {
        throw new Error("no model call in a tool batch");
      },
    } as never,
    clock: { now: () => new Date() },
    faults: { reached: () => {} },
  };
}

async function openBatch(store: EventStore, runId: string, k: number): Promise<string[]> {
  const callIds = Array.from({ length: k }, (_, i) => `call_${i}`);
  const events: NewEvent[] = [
    { type: "run_started", runId, agent: "wide", model: "scripted:demo", input: "look everything up" },
    {
      type: "model_response",
      text: "",
      toolCalls: callIds.map((id, i) => ({
        id,
        name: "look_up",
        arguments: JSON.stringify({ thing: `t${i}` }),
      })),
      stop: "tool_calls",
      model: "scripted:demo",
    },
  ];
  const [first, response] = events.map((event, i) => stamp(event, i + 1, AT, 1));
  await store.createRun(first as Extract<RunEvent, { type: "run_started" }>);
  await store.append(runId, response!);
  return callIds;
}

/** What one batch cost the store: every append, the ones that lost their seq, and the reads. */
interface BatchCost {
  appends: number;
  lost: number;
  reads: number;
}

async function runBatch(inner: EventStore, runId: string, k: number): Promise<BatchCost> {
  const callIds = await openBatch(inner, runId, k);
  const { store, count } = counted(inner);
  await Promise.all(
    callIds.map((callId) => runTool(lambdaDeps(store), { runId, generation: 1, callId, batch: callIds })),
  );
  const log = await inner.read(runId);
  for (const callId of callIds) {
    const mine = log.filter((e) => "callId" in e && e.callId === callId).map((e) => e.type);
    expect(mine).toEqual(["tool_started", "tool_result"]);
  }
  expect(log).toHaveLength(2 + 2 * k);
  // Each call stored exactly its start and its result: every other append lost its seq.
  const appends = count.calls.append ?? 0;
  const reads = (count.calls.read ?? 0) + (count.calls.readBack ?? 0);
  return { appends, lost: appends - 2 * k, reads };
}

const stores = [
  { name: "SQLite", open: async (dataDir: string) => connectStore({ dataDir, env: testEnv() }) },
  {
    name: "DynamoDB (dynalite)",
    open: async (dataDir: string) => {
      const dynalite = await startDynalite();
      const opened = await connectStore({ dataDir, env: dynalite.env() });
      return {
        ...opened,
        close: async () => {
          await opened.close();
          await dynalite.stop();
        },
      };
    },
  },
];

describe.each(stores)("a wide tool batch on $name", ({ open }) => {
  const dataDir = tempDataDir("wide-batches");
  let opened: Awaited<ReturnType<typeof open>> | undefined;
  afterAll(async () => {
    await opened?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.for([1, 10, 40])("of %i parallel calls loses at most that many seq races", async (k, { annotate }) => {
    opened ??= await open(dataDir);
    const cost = await runBatch(opened.store, `wide-${k}-${Date.now()}`, k);
    // The table in docs/design/cost-and-scale.md: `npx vitest run test/steps/wideBatches.test.ts --reporter=verbose` shows these.
    await annotate(`appends ${cost.appends} (lost ${cost.lost}), reads ${cost.reads}`);
    expect(cost.lost).toBeLessThanOrEqual(k);
  });
});

describe("a call waiting for its turn", () => {
  const dataDir = tempDataDir("wide-turns");
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("does not wait for ever on a call ahead of it that never comes (its Lambda throttled)", async () => {
    const { store, close } = await connectStore({ dataDir, env: testEnv() });
    try {
      const runId = "wide-stuck";
      const callIds = await openBatch(store, runId, 3);
      // call_0 is first in line and does not run: the others still do, once the log stops growing.
      await Promise.all(
        callIds
          .slice(1)
          .map((callId) => runTool(lambdaDeps(store), { runId, generation: 1, callId, batch: callIds })),
      );
      const started = (await store.read(runId)).filter((e) => e.type === "tool_started");
      // Both gave up waiting on call_0 at about the same time: they ran, in either order.
      expect(started.map((e) => ("callId" in e ? e.callId : "")).sort()).toEqual(["call_1", "call_2"]);
    } finally {
      await close();
    }
  });
});
