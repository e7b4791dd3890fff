import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { defineTool } from "../../lib/agents/defineTool.ts";
import { demoAgent } from "../../lib/agents/demo.ts";
import { StaleError } from "../../lib/core/errors.ts";
import type { NewEvent, RunStarted } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";
import type { Model } from "../../lib/ports/model.ts";
import { callModel } from "../../lib/steps/callModel.ts";
import { runTool } from "../../lib/steps/runTool.ts";
import { cleanup, events, library, script, tempDataDir, testEnv } from "../support/cli.ts";
import { connectStore } from "../support/store.ts";
import { gate, harness } from "./support/harness.ts";
import { tally } from "./support/tally.ts";

/**
 * A zombie is a step of an older generation still running after a resume
 * started a newer one (a Lambda that outlived its execution). Whatever it
 * does, it must not write: it ends with StaleError and the log is unchanged.
 */
const dir = tempDataDir("reliability-zombies");
let store: EventStore;
let close: () => Promise<void>;
let zombies = 0;

beforeAll(async () => {
  ({ store, close } = await connectStore({ dataDir: dir, env: testEnv() }));
});
afterAll(async () => {
  tally("zombie steps", { zombies });
  await close();
  await cleanup(dir);
});

const modelEntered = gate();
const modelAnswers = gate();
const toolEntered = gate();
const toolFinishes = gate();
let toolRuns = 0;

/** A model that waits until the test lets it answer. */
const heldModel: Model = {
  spec: "held",
  call: async () => {
    modelEntered.open();
    await modelAnswers.opened;
    return { text: "a stale answer", toolCalls: [], stop: "stop" };
  },
};
/** The demo agent whose write_note waits until the test lets it finish. */
const heldAgent = (context: { dataDir: string }) => ({
  ...demoAgent(context),
  tools: [
    defineTool({
      name: "write_note",
      description: "held",
      parameters: z.object({ text: z.string() }),
      run: async () => {
        toolRuns++;
        toolEntered.open();
        await toolFinishes.opened;
        return "noted by a zombie";
      },
    }),
  ],
});
const zombie = () => harness(store, dir, { models: () => heldModel, agents: { demo: heldAgent } }).deps;

/** Write a run's first events straight into the store: a run as a crashed generation 1 left it. */
async function seed(runId: string, model: string, rest: NewEvent[]): Promise<void> {
  const at = new Date();
  const first = stamp({ type: "run_started", runId, agent: "demo", model, input: "go" }, 1, at);
  await store.createRun(first as RunStarted);
  for (const [i, event] of rest.entries()) await store.append(runId, stamp(event, i + 2, at));
}

describe("a zombie step of generation 1, after a resume to generation 2", () => {
  it("CallModel that was waiting for its model when the resume happened cannot append", async () => {
    // Turn 0 is the call that failed; the resume's call is turn 1.
    const model = script(dir, "model-zombie", [{ error: "connection" }, { text: "Done", stop: "stop" }]);
    // Generation 1 got as far as a failed model call: the resume opens generation 2.
    await seed("model-zombie", model, [
      { type: "model_failed", error: { name: "ModelUnavailableError", message: "down" }, retryable: true },
    ]);
    const step = callModel(zombie(), { runId: "model-zombie", generation: 1 }).catch((e: unknown) => e);
    await modelEntered.opened;
    const { runlog } = await library(dir);
    expect(await runlog.resume({ runId: "model-zombie" })).toMatchObject({ status: "completed" });
    const before = await events(dir, "model-zombie");
    modelAnswers.open();
    expect(await step).toBeInstanceOf(StaleError);
    zombies++;
    expect(await events(dir, "model-zombie")).toEqual(before);
  });

  it("RunTool whose tool was running when the resume happened cannot append its result", async () => {
    const model = script(dir, "tool-zombie", [
      { toolCalls: [{ name: "write_note", arguments: { text: "z" } }] },
      { text: "Done", stop: "stop" },
    ]);
    const call = { id: "call_0_0", name: "write_note", arguments: '{"text":"z"}' };
    await seed("tool-zombie", model, [
      { type: "model_response", text: "", toolCalls: [call], stop: "tool_calls" },
    ]);
    const step = runTool(zombie(), { runId: "tool-zombie", generation: 1, callId: call.id }).catch(
      (e: unknown) => e,
    );
    await toolEntered.opened;
    const { runlog } = await library(dir);
    expect(await runlog.resume({ runId: "tool-zombie" })).toMatchObject({ status: "completed" });
    const before = await events(dir, "tool-zombie");
    // The new generation answered the started call as interrupted, without running it again.
    expect(before.find((e) => e.type === "tool_result")).toMatchObject({
      callId: call.id,
      interrupted: true,
    });
    toolFinishes.open();
    expect(await step).toBeInstanceOf(StaleError);
    zombies++;
    expect(await events(dir, "tool-zombie")).toEqual(before);
    expect(toolRuns).toBe(1);
  });

  it("steps started by a late generation-1 delivery stop before doing anything", async () => {
    const before = await events(dir, "tool-zombie");
    const deps = zombie();
    await expect(callModel(deps, { runId: "tool-zombie", generation: 1 })).rejects.toBeInstanceOf(StaleError);
    await expect(
      runTool(deps, { runId: "tool-zombie", generation: 1, callId: "call_0_0" }),
    ).rejects.toBeInstanceOf(StaleError);
    zombies += 2;
    expect(await events(dir, "tool-zombie")).toEqual(before);
    expect(toolRuns).toBe(1);
  });
});
