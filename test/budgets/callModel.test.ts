import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRegistry } from "../../lib/agents/registry.ts";
import type { NewEvent, RunStarted } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";
import type { ModelResolver } from "../../lib/ports/model.ts";
import { callModel } from "../../lib/steps/callModel.ts";
import type { StepDeps } from "../../lib/steps/deps.ts";
import { LogCache } from "../../lib/steps/logCache.ts";
import { unstoredWork } from "../../lib/steps/unstoredWork.ts";
import { tempDataDir, testEnv } from "../support/cli.ts";
import { connectStore } from "../support/store.ts";

// The CallModel step as a Lambda runs it: a fresh process, a log cache that does not trust its
// tail (it reads the store), nothing in memory about the run. The budget is whatever the log says.

const dataDir = tempDataDir("budget-steps");
let store: EventStore;
let close: () => Promise<void>;
const calls: string[] = [];
/** A model that answers, and counts: a step that stops for the budget must never call it. */
const models: ModelResolver = (spec) => ({
  spec,
  call: async () => {
    calls.push(spec);
    return { text: "", toolCalls: [{ id: "c", name: "noop", arguments: "{}" }], stop: "tool_calls" };
  },
});

/** A fresh process's step deps: a new cache, the agent `worker` with these limits. */
const freshDeps = (limits?: { maxTurns?: number; maxTokens?: number }): StepDeps => ({
  store,
  logs: new LogCache(store),
  unstored: unstoredWork(),
  agents: agentRegistry(
    { dataDir },
    {
      worker: () => ({
        name: "worker",
        instructions: "",
        tools: [],
        defaultModel: "mine:m",
        ...(limits === undefined ? {} : { limits }),
      }),
    },
  ),
  models,
  clock: { now: () => new Date("2026-12-04T12:00:00.000Z") },
  faults: { reached: () => {} },
});

/** A log of `turns` tool-using turns, each answered, written straight to the store as an older runlog would have. */
async function writeLog(runId: string, turns: number, limits?: { maxTurns: number }): Promise<number> {
  const at = new Date("2026-12-04T11:00:00.000Z");
  const first = stamp(
    {
      type: "run_started",
      runId,
      agent: "worker",
      model: "mine:m",
      input: "go",
      ...(limits ? { limits } : {}),
    },
    1,
    at,
  ) as RunStarted;
  await store.createRun(first);
  let seq = 1;
  const add = (event: NewEvent) => store.append(runId, stamp(event, ++seq, at, 1));
  for (let turn = 0; turn < turns; turn++) {
    const id = `c${turn}`;
    await add({
      type: "model_response",
      text: "",
      toolCalls: [{ id, name: "noop", arguments: "{}" }],
      stop: "tool_calls",
      model: "mine:m",
      usage: { inputTokens: 40, outputTokens: 10 },
    });
    await add({ type: "tool_result", callId: id, name: "noop", content: "ok", isError: false });
  }
  return seq;
}

beforeAll(async () => {
  const connected = await connectStore({ dataDir, env: testEnv() });
  store = connected.store;
  close = connected.close;
});
afterAll(async () => {
  await close();
});

describe("CallModel in a fresh process (as on Lambda)", () => {
  it("counts turns from the committed log and appends budget_exhausted instead of calling the model", async () => {
    const last = await writeLog("steps-turns", 3, { maxTurns: 3 });
    calls.length = 0;
    const next = await callModel(freshDeps(), { runId: "steps-turns", generation: 1 });
    expect(next).toEqual({ action: "done" });
    expect(calls).toEqual([]);
    const events = await store.read("steps-turns");
    expect(events).toHaveLength(last + 1);
    expect(events.at(-1)).toMatchObject({
      seq: last + 1,
      gen: 1,
      type: "budget_exhausted",
      limit: "maxTurns",
      used: { turns: 3, tokens: 150 },
    });
    // Retried (a Step Functions retry, a duplicate delivery): the same answer, nothing written.
    expect(await callModel(freshDeps(), { runId: "steps-turns", generation: 1 })).toEqual({ action: "done" });
    expect(await store.read("steps-turns")).toHaveLength(last + 1);
    expect(calls).toEqual([]);
  });

  it("goes by the agent's limits for a log that recorded none, and calls the model below them", async () => {
    await writeLog("steps-old", 2);
    calls.length = 0;
    expect(await callModel(freshDeps({ maxTurns: 5 }), { runId: "steps-old", generation: 1 })).toEqual({
      action: "tools",
      callIds: ["c"],
      tools: ["noop"],
    });
    expect(calls).toEqual(["mine:m"]);

    await writeLog("steps-old-tokens", 2);
    calls.length = 0;
    // 2 turns of 50 tokens: at a limit of 100, no third turn.
    expect(
      await callModel(freshDeps({ maxTokens: 100 }), { runId: "steps-old-tokens", generation: 1 }),
    ).toEqual({ action: "done" });
    expect(calls).toEqual([]);
    expect((await store.read("steps-old-tokens")).at(-1)).toMatchObject({
      type: "budget_exhausted",
      limit: "maxTokens",
      limits: { maxTokens: 100, maxTurns: 100 },
    });
  });
});
