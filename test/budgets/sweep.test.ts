import { afterAll, describe, expect, it } from "vitest";
import { BUILT_IN_AGENTS } from "../../lib/agents/builtIn.ts";
import { agentRegistry } from "../../lib/agents/registry.ts";
import type { NewEvent, RunEvent } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";
import type { ExecutionInput } from "../../lib/ports/runtime.ts";
import type { ControlDeps } from "../../lib/steps/deps.ts";
import { LogCache } from "../../lib/steps/logCache.ts";
import { sweep } from "../../lib/steps/sweep.ts";
import { unstoredWork } from "../../lib/steps/unstoredWork.ts";
import { cleanup, tempDataDir, testEnv } from "../support/cli.ts";
import { modelsNeverCalled, recordingOrchestrator } from "../support/controlDeps.ts";
import { connectStore } from "../support/store.ts";

// An executor that wrote budget_exhausted and died before its Finish: the head still says
// `running` under a dead owner. The sweeper must rest it, not resume it.

const LATER = new Date(Date.now() + 3_600_000);
const dir = tempDataDir("budget-sweep");
let close: (() => Promise<void>) | undefined;
afterAll(async () => {
  await close?.();
  await cleanup(dir);
});

function depsOn(store: EventStore, executed: ExecutionInput[]): ControlDeps {
  return {
    store,
    logs: new LogCache(store),
    unstored: unstoredWork(),
    agents: agentRegistry({ dataDir: "unused" }, BUILT_IN_AGENTS),
    models: modelsNeverCalled,
    clock: { now: () => LATER },
    faults: { reached: () => {} },
    orchestrator: recordingOrchestrator(executed),
    leaseMs: 30_000,
  };
}

describe("the sweeper and a run left at its limit", () => {
  it("rests it as budget_exhausted and starts nothing", async () => {
    const connected = await connectStore({ dataDir: dir, env: testEnv() });
    close = connected.close;
    const store = connected.store;
    const events: NewEvent[] = [
      {
        type: "run_started",
        runId: "spent",
        agent: "demo",
        model: "scripted:demo",
        input: "go",
        limits: { maxTurns: 1 },
      },
      {
        type: "model_response",
        text: "",
        toolCalls: [{ id: "c1", name: "get_weather", arguments: '{"city":"Faro"}' }],
        stop: "tool_calls",
        model: "scripted:demo",
      },
      { type: "tool_started", callId: "c1", name: "get_weather" },
      { type: "tool_result", callId: "c1", name: "get_weather", content: "sunny", isError: false },
      { type: "budget_exhausted", limit: "maxTurns", used: { turns: 1, tokens: 0 }, limits: { maxTurns: 1 } },
    ];
    const stamped: RunEvent[] = events.map((event, i) => stamp(event, i + 1, new Date(), 1));
    await store.createRun(stamped[0] as Extract<RunEvent, { type: "run_started" }>, {
      owner: "local-dead-owner",
      until: Date.now() + 30_000,
    });
    for (const event of stamped.slice(1)) await store.append("spent", event);
    expect(await store.getHead("spent")).toMatchObject({ status: "running" });

    const executed: ExecutionInput[] = [];
    const report = await sweep(depsOn(store, executed));
    expect(report.resumed).toEqual([]);
    expect(report.skipped).toEqual([{ runId: "spent", why: "not resumable: budget_exhausted" }]);
    expect(executed).toEqual([]);
    expect(await store.getHead("spent")).toMatchObject({ status: "budget_exhausted", lastSeq: 5 });
    expect(await store.read("spent")).toEqual(stamped);
  });
});
