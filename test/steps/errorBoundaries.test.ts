import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { defineAgent } from "../../lib/agents/defineAgent.ts";
import { defineTool } from "../../lib/agents/defineTool.ts";
import { type AgentFactory, agentRegistry } from "../../lib/agents/registry.ts";
import { InvalidInputError, ModelRejectedError, RetryableError, StaleError } from "../../lib/core/errors.ts";
import type { NewEvent, RunEvent } from "../../lib/core/events.ts";
import { INTERRUPTED_TOOL_RESULT, timedOutToolResult } from "../../lib/core/messages.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";
import type { Model, ModelReply, ModelRequest } from "../../lib/ports/model.ts";
import type { Tool } from "../../lib/ports/tool.ts";
import { callModel } from "../../lib/steps/callModel.ts";
import type { StepDeps } from "../../lib/steps/deps.ts";
import { LogCache } from "../../lib/steps/logCache.ts";
import { recordModelFailure } from "../../lib/steps/recordModelFailure.ts";
import { runTool } from "../../lib/steps/runTool.ts";
import { unstoredWork } from "../../lib/steps/unstoredWork.ts";
import { workflowErrorName } from "../../lib/workflow/errors.ts";
import { tempDataDir, testEnv } from "../support/cli.ts";
import { connectStore } from "../support/store.ts";

/**
 * Issue 13's error boundaries, through the real steps on the SQLite store: only the model's own
 * failures are model failures, a tool's result survives a store blip, a timeout is worded like an
 * interruption, a retried CallModel answers as the attempt that wrote the log did, and durations
 * come from the injected clock.
 */
const dataDir = tempDataDir("error-boundaries");
let store: EventStore;
let close: () => Promise<void>;
let ids = 0;

beforeAll(async () => {
  ({ store, close } = await connectStore({ dataDir, env: testEnv() }));
});
afterAll(async () => {
  await close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The store, with appends of chosen event types failing as a store blip does (a RetryableError). */
function blipping(inner: EventStore) {
  const faults = { failing: new Set<string>(), failures: 0, remaining: Number.POSITIVE_INFINITY };
  const append = async (runId: string, event: RunEvent) => {
    if (faults.failing.has(event.type) && faults.remaining > 0) {
      faults.remaining--;
      faults.failures++;
      throw new RetryableError(`store blip: append of ${event.type} at seq ${event.seq} failed`);
    }
    return inner.append(runId, event);
  };
  const proxy = new Proxy(inner, {
    get(target, property) {
      if (property === "append") return append;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: proxy, faults };
}

/** A clock that moves `stepMs` forward each time it is read: a step's time passes without waiting for it. */
function steppingClock(stepMs: number) {
  let now = Date.parse("2026-05-01T00:00:00Z");
  return {
    now: () => {
      now += stepMs;
      return new Date(now);
    },
  };
}

/** A model that answers every turn with `reply` and counts its calls. */
function countingModel(reply: ModelReply, behaviour?: (request: ModelRequest) => Promise<ModelReply>) {
  const model = {
    spec: "counting:test",
    calls: 0,
    call: async (request: ModelRequest) => {
      model.calls++;
      return behaviour ? behaviour(request) : reply;
    },
  };
  return model satisfies Model;
}

const finalAnswer: ModelReply = { text: "Done", toolCalls: [], stop: "stop" };

function depsFor(
  agent: AgentFactory,
  model: Model,
  options: { store?: EventStore; clock?: StepDeps["clock"]; logs?: LogCache; signal?: AbortSignal } = {},
): StepDeps {
  const used = options.store ?? store;
  return {
    store: used,
    logs: options.logs ?? new LogCache(used),
    unstored: unstoredWork(),
    agents: agentRegistry({ dataDir }, { test: agent }),
    models: () => model,
    clock: options.clock ?? { now: () => new Date() },
    faults: { reached: () => {} },
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/** A run of agent `test` whose log is run_started and then `more`, written straight to the store. */
async function runWith(more: NewEvent[]): Promise<string> {
  const runId = `boundaries-${++ids}`;
  const at = new Date();
  const first = stamp(
    { type: "run_started", runId, agent: "test", model: "counting:test", input: "go" },
    1,
    at,
  );
  if (first.type !== "run_started") throw new Error("unreachable");
  await store.createRun(first);
  for (const [i, event] of more.entries()) await store.append(runId, stamp(event, i + 2, at));
  return runId;
}

const batchOf = (name: string, args = "{}"): NewEvent => ({
  type: "model_response",
  text: "",
  toolCalls: [{ id: "c1", name, arguments: args }],
  stop: "tool_calls",
});

async function resultOf(runId: string): Promise<RunEvent & { type: "tool_result" }> {
  const result = (await store.read(runId)).find((event) => event.type === "tool_result");
  if (result?.type !== "tool_result") throw new Error(`run ${runId} has no tool_result`);
  return result;
}

/** A tool that counts its runs. */
function countedTool(name: string) {
  const tool = defineTool({
    name,
    description: "Counts its runs.",
    parameters: z.object({}),
    run: () => {
      counted.runs++;
      return "the real result";
    },
  });
  const counted = { tool, runs: 0 };
  return counted;
}

describe("a tool whose schema has no JSON Schema", () => {
  const dated = {
    name: "remind",
    description: "Sets a reminder.",
    parameters: z.object({ when: z.date() }),
    run: () => "set",
  };

  it("is refused when it is defined, naming the tool", () => {
    const error = (() => {
      try {
        defineTool(dated);
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toContain("tool remind");
  });

  it("made without defineTool, is refused by defineAgent", () => {
    const raw = {
      ...dated,
      idempotent: false,
      timeoutMs: 1_000,
      needsApproval: () => false,
    } as unknown as Tool;
    expect(() => defineAgent({ name: "a", instructions: "", model: "test:m", tools: [raw] })).toThrow(
      InvalidInputError,
    );
  });

  it("reaching CallModel anyway fails the step as the tool's fault, not as a model failure", async () => {
    const raw = {
      ...dated,
      idempotent: false,
      timeoutMs: 1_000,
      needsApproval: () => false,
      run: async () => "set",
    } as Tool;
    // An agent that skips defineAgent's checks, as a hand-written registry could.
    const agent: AgentFactory = () => ({ name: "test", instructions: "", tools: [raw], defaultModel: "m" });
    const model = countingModel(finalAnswer);
    const runId = await runWith([]);
    const failure = await callModel(depsFor(agent, model), { runId, generation: 1 }).catch((e) => e);
    expect(failure).toBeInstanceOf(InvalidInputError);
    expect(failure).not.toBeInstanceOf(ModelRejectedError);
    expect(workflowErrorName(failure)).toBe("PermanentError");
    expect(model.calls).toBe(0);
  });
});

describe("an approval rule that throws", () => {
  /** The calls a response asking for `guarded` at 500 and at 5 records as waiting for a person, under this rule. */
  async function waitingUnder(rule: (args: { amount: number }) => boolean) {
    const tool = defineTool({
      name: "guarded",
      description: "Runs only when its rule says so.",
      parameters: z.object({ amount: z.number() }),
      needsApproval: rule,
      run: () => "ran",
    });
    const agent = defineAgent({ name: "test", instructions: "", model: "test:m", tools: [tool] });
    const model = countingModel({
      text: "",
      toolCalls: [
        { id: "c1", name: "guarded", arguments: '{"amount":500}' },
        { id: "c2", name: "guarded", arguments: '{"amount":5}' },
      ],
      stop: "tool_calls",
    });
    const runId = await runWith([]);
    await callModel(depsFor(agent, model), { runId, generation: 1 });
    expect(model.calls).toBe(1);
    const response = (await store.read(runId)).find((event) => event.type === "model_response");
    return response?.type === "model_response" ? response.approvals : undefined;
  }

  it("asks a person for that call (fail closed): the model's reply is stored, asked for once, and the tool does not run", async () => {
    const approvals = await waitingUnder(({ amount }) => {
      if (amount > 100) throw new Error("the limits service is down");
      return false;
    });
    expect(approvals).toEqual(["c1"]);
  });

  it("asks a person when the rule is async (a promise is no answer), and its rejection never goes unhandled", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      // Async, which the rule's type does not allow: JavaScript callers can give one all the same.
      const rule = async ({ amount }: { amount: number }) => {
        if (amount > 100) throw new Error("the limits service is down");
        return false;
      };
      const approvals = await waitingUnder(rule as unknown as (args: { amount: number }) => boolean);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(approvals).toEqual(["c1", "c2"]);
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});

describe("a tool's result and a store blip", () => {
  it("is stored by trying the append again within the step", async () => {
    const counted = countedTool("counted");
    const agent = defineAgent({ name: "test", instructions: "", model: "test:m", tools: [counted.tool] });
    const faulty = blipping(store);
    faulty.faults.failing.add("tool_result");
    faulty.faults.remaining = 2;
    const runId = await runWith([batchOf("counted")]);
    const deps = depsFor(agent, countingModel(finalAnswer), { store: faulty.store });
    expect(await runTool(deps, { runId, generation: 1, callId: "c1" })).toEqual({
      callId: "c1",
      isError: false,
    });
    expect(faulty.faults.failures).toBe(2);
    expect((await resultOf(runId)).content).toBe("the real result");
    expect(counted.runs).toBe(1);
  });

  it("that outlasts the step's budget fails the step, and the step's retry in this process stores the real result", async () => {
    const counted = countedTool("counted");
    const agent = defineAgent({ name: "test", instructions: "", model: "test:m", tools: [counted.tool] });
    const faulty = blipping(store);
    faulty.faults.failing.add("tool_result");
    const runId = await runWith([batchOf("counted")]);
    // Twenty seconds pass at every reading of the clock: the store retry's minute runs out at once.
    const deps = depsFor(agent, countingModel(finalAnswer), {
      store: faulty.store,
      clock: steppingClock(20_000),
    });
    const input = { runId, generation: 1, callId: "c1" };
    await expect(runTool(deps, input)).rejects.toBeInstanceOf(RetryableError);
    faulty.faults.failing.clear();
    // The workflow's retry of the step, on the same process.
    expect(await runTool(deps, input)).toEqual({ callId: "c1", isError: false });
    const result = await resultOf(runId);
    expect(result.content).toBe("the real result");
    expect(result.interrupted).toBeUndefined();
    expect(counted.runs).toBe(1);
  });

  it("lost with its process is answered as interrupted by a retry elsewhere, never run twice", async () => {
    const counted = countedTool("counted");
    const agent = defineAgent({ name: "test", instructions: "", model: "test:m", tools: [counted.tool] });
    const faulty = blipping(store);
    faulty.faults.failing.add("tool_result");
    const runId = await runWith([batchOf("counted")]);
    const first = depsFor(agent, countingModel(finalAnswer), {
      store: faulty.store,
      clock: steppingClock(20_000),
    });
    const input = { runId, generation: 1, callId: "c1" };
    await expect(runTool(first, input)).rejects.toBeInstanceOf(RetryableError);
    // Another process (another Lambda container) has no memory of it: as after a crash, "may or may not".
    const elsewhere = depsFor(agent, countingModel(finalAnswer));
    await runTool(elsewhere, input);
    expect(await resultOf(runId)).toMatchObject({ content: INTERRUPTED_TOOL_RESULT, interrupted: true });
    expect(counted.runs).toBe(1);
  });

  it("after a model call, the step's retry stores the reply it got instead of calling the model again", async () => {
    const agent = defineAgent({ name: "test", instructions: "", model: "test:m" });
    const model = countingModel(finalAnswer);
    const faulty = blipping(store);
    faulty.faults.failing.add("model_response");
    const runId = await runWith([]);
    const deps = depsFor(agent, model, { store: faulty.store, clock: steppingClock(20_000) });
    const input = { runId, generation: 1 };
    const failure = await callModel(deps, input).catch((e) => e);
    expect(failure).toBeInstanceOf(RetryableError);
    expect(workflowErrorName(failure)).toBe("RetryableError"); // not recorded as a model failure
    faulty.faults.failing.clear();
    expect(await callModel(deps, input)).toEqual({ action: "done" });
    expect(model.calls).toBe(1);
    expect((await store.read(runId)).at(-1)).toMatchObject({ type: "model_response", text: "Done" });
  });
});

describe("a tool that passes its timeout", () => {
  it("is answered in the words of an interruption: it may still have done its work", async () => {
    const hanging = defineTool({
      name: "hanging",
      description: "Never answers, and ignores its abort.",
      parameters: z.object({}),
      timeoutMs: 20,
      run: () => new Promise(() => {}),
    });
    const agent = defineAgent({ name: "test", instructions: "", model: "test:m", tools: [hanging] });
    const runId = await runWith([batchOf("hanging")]);
    await runTool(depsFor(agent, countingModel(finalAnswer)), { runId, generation: 1, callId: "c1" });
    const result = await resultOf(runId);
    expect(result).toMatchObject({ content: timedOutToolResult("hanging", 20), isError: true });
    expect(result.content).toContain("may or may not have finished");
  });
});

describe("a CallModel that finds its own cut-off or truncated response", () => {
  const agent = defineAgent({ name: "test", instructions: "", model: "test:m" });

  it.each(["max_output", "interrupted"])(
    "after a %s response of its generation, answers done as the attempt that wrote it did",
    async (stop) => {
      const model = countingModel(finalAnswer);
      const runId = await runWith([{ type: "model_response", text: "part", toolCalls: [], stop }]);
      const deps = depsFor(agent, model);
      expect(await callModel(deps, { runId, generation: 1 })).toEqual({ action: "done" });
      expect(model.calls).toBe(0);
      // Nor is a failure recorded on it: the model is not what the run waits for.
      const failure = { Error: "ModelRejectedError", Cause: "ModelRejectedError: x" };
      expect(await recordModelFailure(deps, { runId, generation: 1, error: failure })).toEqual({
        recorded: false,
      });
    },
  );

  it("after a resume, asks the model again, as the resume meant", async () => {
    const model = countingModel(finalAnswer);
    const runId = await runWith([
      { type: "model_response", text: "part", toolCalls: [], stop: "max_output" },
      { type: "resumed", generation: 2, kind: "continue_response", description: "continue" },
    ]);
    expect(await callModel(depsFor(agent, model), { runId, generation: 2 })).toEqual({ action: "done" });
    expect(model.calls).toBe(1);
  });
});

describe("a model call in an execution that was stopped", () => {
  it("is the stop, not a model failure", async () => {
    const agent = defineAgent({ name: "test", instructions: "", model: "test:m" });
    const execution = new AbortController();
    // What a provider client throws on an abort: a plain error of its own.
    const model = countingModel(finalAnswer, async () => {
      execution.abort("cancelled by a person");
      throw new Error("Request was aborted.");
    });
    const runId = await runWith([]);
    const deps = depsFor(agent, model, { signal: execution.signal });
    const failure = await callModel(deps, { runId, generation: 1 }).catch((e) => e);
    expect(failure).toBeInstanceOf(StaleError);
    expect(workflowErrorName(failure)).toBe("StaleError");
  });
});

describe("durations", () => {
  it("are measured with the injected clock", async () => {
    const counted = countedTool("counted");
    const agent = defineAgent({ name: "test", instructions: "", model: "test:m", tools: [counted.tool] });
    // Each reading of the clock is a second later: a call between two readings took exactly 1,000 ms.
    const clock = steppingClock(1_000);
    const model = countingModel({
      text: "",
      toolCalls: [{ id: "c1", name: "counted", arguments: "{}" }],
      stop: "tool_calls",
    });
    const runId = await runWith([]);
    const deps = depsFor(agent, model, { clock });
    await callModel(deps, { runId, generation: 1 });
    await runTool(deps, { runId, generation: 1, callId: "c1" });
    const log = await store.read(runId);
    expect(log.find((event) => event.type === "model_response")).toMatchObject({ ms: 1_000 });
    expect(log.find((event) => event.type === "tool_result")).toMatchObject({ ms: 1_000 });
  });
});
