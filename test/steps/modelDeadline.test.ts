import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineAgent } from "../../lib/agents/defineAgent.ts";
import { agentRegistry } from "../../lib/agents/registry.ts";
import { classify } from "../../lib/core/classify.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";
import type { Model, ModelReply, ModelRequest } from "../../lib/ports/model.ts";
import { callModel } from "../../lib/steps/callModel.ts";
import { LogCache } from "../../lib/steps/logCache.ts";
import { modelDeadline } from "../../lib/steps/stepBudget.ts";
import { unstoredWork } from "../../lib/steps/unstoredWork.ts";
import { tempDataDir, testEnv } from "../support/cli.ts";
import { connectStore } from "../support/store.ts";

/**
 * Issue 14: a model call still under way near its CallModel step's deadline is told to end
 * before the step's function runs out of time, and what it streamed is stored as a response cut
 * off by a failure, which a resume asks the model to start again. The injected clock puts the
 * step's start 900 s back, so the deadline is a few milliseconds away when the call starts.
 */
const dataDir = tempDataDir("model-deadline");
let store: EventStore;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ store, close } = await connectStore({ dataDir, env: testEnv() }));
});
afterAll(async () => {
  await close();
  rmSync(dataDir, { recursive: true, force: true });
});

const STARTED = Date.parse("2026-05-01T00:00:00Z");
/** The step's start on its first reading, then `leftMs` before its model call's deadline. */
function clockNearDeadline(leftMs: number) {
  let reads = 0;
  const late = modelDeadline(new Date(STARTED)) - leftMs;
  return { now: () => new Date(reads++ === 0 ? STARTED : late) };
}

/** A model that streams `text` and then waits, ending only when its request's deadline tells it to. */
function streamingUntilTold(text: string): Model & { deadlines: number } {
  const model = {
    spec: "streaming:test",
    deadlines: 0,
    call: (request: ModelRequest) =>
      new Promise<ModelReply>((resolve, reject) => {
        // Fails the test, rather than hanging it, when nothing tells the call to end.
        const never = setTimeout(() => reject(new Error("the call was never told to end")), 3_000);
        const end = () => {
          clearTimeout(never);
          model.deadlines++;
          resolve({ text, toolCalls: [], stop: "interrupted" });
        };
        if (request.deadline?.aborted) end();
        else request.deadline?.addEventListener("abort", end, { once: true });
      }),
  };
  return model;
}

async function newRun(runId: string): Promise<void> {
  const first = stamp(
    { type: "run_started", runId, agent: "test", model: "streaming:test", input: "Tell me a long story" },
    1,
    new Date(STARTED),
  );
  if (first.type !== "run_started") throw new Error("unreachable");
  await store.createRun(first);
}

describe("CallModel near its deadline", () => {
  it("ends the model call before the function would die, and stores what streamed as a cut-off response", async () => {
    const runId = "deadline-1";
    await newRun(runId);
    const model = streamingUntilTold("Once upon a time, in a");
    const next = await callModel(
      {
        store,
        logs: new LogCache(store),
        unstored: unstoredWork(),
        agents: agentRegistry(
          { dataDir },
          { test: defineAgent({ name: "test", instructions: "", model: "test:m" }) },
        ),
        models: () => model,
        clock: clockNearDeadline(20),
        faults: { reached: () => {} },
      },
      { runId, generation: 1 },
    );
    expect(model.deadlines).toBe(1);
    const events = await store.read(runId);
    expect(events.at(-1)).toMatchObject({
      type: "model_response",
      text: "Once upon a time, in a",
      stop: "interrupted",
    });
    // This execution ends; the run rests resumable, and a resume asks the model to start the response again.
    expect(next).toEqual({ action: "done" });
    expect(classify(events)).toMatchObject({ resumable: true, kind: "retry_response" });
  });
});
