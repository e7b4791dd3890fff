import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { createScriptedModel, DEMO_SCRIPT, ScriptedModel } from "../../../lib/adapters/scripted/index.ts";
import type { Script } from "../../../lib/adapters/scripted/script.ts";
import {
  errorCategory,
  InvalidInputError,
  ModelRejectedError,
  ModelUnavailableError,
} from "../../../lib/core/errors.ts";
import type { ModelRequest } from "../../../lib/ports/model.ts";

const EXAMPLE: Script = {
  turns: [
    { toolCalls: [{ name: "write_note", arguments: { text: "a" } }] },
    { text: "partial", stop: "max_output" },
    { text: "cut", stop: "interrupted" },
    { error: "connection" },
    { text: "no", stop: "refusal" },
    { stop: "context_full" },
    { text: "Done", stop: "stop" },
    { error: "rate_limit" },
    { error: "rejected" },
    { text: "plain", usage: { inputTokens: 10, outputTokens: 3 } },
    {
      toolCalls: [
        { name: "get_weather", arguments: '{"city":' },
        { name: "write_note", arguments: { text: "x", tags: ["a", "b"] } },
      ],
    },
  ],
};
const model = new ScriptedModel("scripted:example", EXAMPLE);

const request = (turn: number, signal?: AbortSignal): ModelRequest => ({
  runId: "run-1",
  turn,
  instructions: "Be brief.",
  messages: [{ role: "user", content: "hello" }],
  tools: [],
  ...(signal ? { signal } : {}),
});

const dir = mkdtempSync(join(tmpdir(), "runlog-scripted-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.useRealTimers();
});

describe("ScriptedModel", () => {
  it.each([
    {
      turn: 0,
      reply: {
        text: "",
        toolCalls: [{ id: "call_0_0", name: "write_note", arguments: '{"text":"a"}' }],
        stop: "tool_calls",
      },
    },
    { turn: 1, reply: { text: "partial", toolCalls: [], stop: "max_output" } },
    { turn: 2, reply: { text: "cut", toolCalls: [], stop: "interrupted" } },
    { turn: 4, reply: { text: "no", toolCalls: [], stop: "refusal" } },
    { turn: 5, reply: { text: "", toolCalls: [], stop: "context_full" } },
    { turn: 6, reply: { text: "Done", toolCalls: [], stop: "stop" } },
    {
      turn: 9,
      reply: { text: "plain", toolCalls: [], stop: "stop", usage: { inputTokens: 10, outputTokens: 3 } },
    },
  ])("answers turn $turn as scripted", async ({ turn, reply }) => {
    expect(await model.call(request(turn))).toStrictEqual(reply);
  });

  it.each([
    { turn: 3, error: ModelUnavailableError, category: "RetryableError", says: "connection" },
    { turn: 7, error: ModelUnavailableError, category: "RetryableError", says: "429" },
    { turn: 8, error: ModelRejectedError, category: "PermanentError", says: "rejected" },
  ])("fails turn $turn with a $category", async ({ turn, error, category, says }) => {
    const failure = await model.call(request(turn)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(error);
    expect(errorCategory(failure)).toBe(category);
    expect((failure as Error).message).toContain(says);
  });

  it("sends object arguments as JSON and string arguments verbatim, with ids by turn and position", async () => {
    const reply = await model.call(request(10));
    expect(reply.toolCalls).toEqual([
      { id: "call_10_0", name: "get_weather", arguments: '{"city":' },
      { id: "call_10_1", name: "write_note", arguments: '{"text":"x","tags":["a","b"]}' },
    ]);
  });

  it("plays the turn it is asked for, whatever the messages say, the same way every time", async () => {
    const first = await model.call(request(1));
    const again = await model.call({ ...request(1), messages: [], instructions: "other" });
    expect(again).toEqual(first);
    expect((await model.call(request(0))).toolCalls[0]?.id).toBe("call_0_0");
  });

  it("refuses a turn past the end of the script, saying how long it is", async () => {
    const call = model.call(request(11));
    await expect(call).rejects.toBeInstanceOf(ModelRejectedError);
    await expect(call).rejects.toThrow("the script has 11 turns and turn 12 was requested");
  });

  it("refuses a turn number that is not one", async () => {
    await expect(model.call(request(-1))).rejects.toBeInstanceOf(ModelRejectedError);
  });
});

describe("streamed text", () => {
  it.each([
    ["the demo's final answer", createScriptedModel("scripted:demo"), DEMO_SCRIPT.turns.length - 1],
    ["a one-word answer", model, 6],
  ])("tells onText %s in pieces that make the reply's text", async (_, played, turn) => {
    const told: string[] = [];
    const reply = await played.call({
      ...request(turn),
      onText: (delta) => told.push(delta),
    });
    expect(told.join("")).toBe(reply.text);
    expect(reply.text.length).toBeGreaterThan(0);
  });

  it("streams a text of many words in more than one piece", async () => {
    const told: string[] = [];
    const script: Script = { turns: [{ text: "one two three four five six seven eight" }] };
    const reply = await new ScriptedModel("scripted:words", script).call({
      ...request(0),
      onText: (delta) => told.push(delta),
    });
    expect(told.length).toBeGreaterThan(1);
    expect(told.join("")).toBe(reply.text);
  });

  it("tells onText nothing for a turn without text", async () => {
    const told: string[] = [];
    await model.call({ ...request(0), onText: (delta) => told.push(delta) });
    expect(told).toEqual([]);
  });
});

describe("delays", () => {
  const slow = new ScriptedModel("scripted:slow", { turns: [{ text: "late", delayMs: 60_000 }] });

  it("answers only once its delay has passed", async () => {
    vi.useFakeTimers();
    let settled = false;
    const call = slow.call(request(0)).finally(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(59_999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await call).toMatchObject({ text: "late" });
  });

  it("stops waiting when the signal aborts, throwing its reason as the other models do", async () => {
    const controller = new AbortController();
    const call = slow.call(request(0, controller.signal));
    const reason = new Error("tool timeout");
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
  });

  it("stops waiting at the step's deadline as at a stop, nothing having streamed", async () => {
    const deadline = new AbortController();
    const call = slow.call({ ...request(0, new AbortController().signal), deadline: deadline.signal });
    deadline.abort(new Error("the step's time is nearly up"));
    await expect(call).rejects.toBeInstanceOf(ModelUnavailableError);
  });

  it("does not answer when the signal is already aborted", async () => {
    const quick = new ScriptedModel("scripted:quick", { turns: [{ text: "now" }] });
    const reason = new Error("cancelled");
    await expect(quick.call(request(0, AbortSignal.abort(reason)))).rejects.toBe(reason);
  });
});

describe("createScriptedModel", () => {
  it("plays the built-in demo for scripted:demo", async () => {
    const demo = createScriptedModel("scripted:demo");
    expect(demo.spec).toBe("scripted:demo");
    const turns = await Promise.all([0, 1, 2].map((turn) => demo.call(request(turn))));
    expect(turns[0]?.toolCalls).toEqual([
      { id: "call_0_0", name: "get_weather", arguments: '{"city":"Lisbon"}' },
    ]);
    expect(turns[1]?.toolCalls).toEqual([
      { id: "call_1_0", name: "write_note", arguments: '{"text":"Pack sunglasses"}' },
      { id: "call_1_1", name: "write_note", arguments: '{"text":"Book a table by the river"}' },
    ]);
    expect(turns.map((reply) => reply.stop)).toEqual(["tool_calls", "tool_calls", "stop"]);
    expect(turns[2]?.text).toContain("Lisbon");
    expect(DEMO_SCRIPT.turns).toHaveLength(3);
  });

  it("reads a script file once, when the model is created", async () => {
    const path = join(dir, "once.json");
    writeFileSync(path, JSON.stringify({ turns: [{ text: "first version" }] }));
    const scripted = createScriptedModel(`scripted:${path}`);
    writeFileSync(path, JSON.stringify({ turns: [{ text: "second version" }] }));
    expect((await scripted.call(request(0))).text).toBe("first version");
  });

  it.each([
    { spec: "openai:gpt-4.1-mini", says: "expected scripted:demo or scripted:<FILE>" },
    { spec: "scripted:", says: "name a script file" },
    {
      spec: `scripted:${join(dir, "missing.json")}`,
      says: `cannot read script ${join(dir, "missing.json")}`,
    },
  ])("rejects $spec with a clear message", ({ spec, says }) => {
    expect(() => createScriptedModel(spec)).toThrow(InvalidInputError);
    expect(() => createScriptedModel(spec)).toThrow(says);
  });
});
