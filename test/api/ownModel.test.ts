import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import {
  defineAgent,
  defineTool,
  InvalidInputError,
  type Model,
  ModelRejectedError,
  type ModelRequest,
  openLocal,
  UnknownModelError,
} from "../../lib/index.ts";
import { createTestRunlog, type TestRunlog } from "../../lib/testing/index.ts";
import { cleanup, tempDataDir } from "../support/cli.ts";

/** A user's own model in ten lines: it calls `shout` once, then answers with what the tool said. */
function shouting(name: string): Model {
  return {
    spec: `mine:${name}`,
    async call(request: ModelRequest) {
      const last = request.messages.at(-1);
      if (last?.role === "tool")
        return { text: `${name} heard: ${last.content}`, toolCalls: [], stop: "stop" };
      const input = last?.role === "user" ? last.content : "";
      request.onText?.("thinking ");
      return {
        text: "thinking ",
        toolCalls: [{ id: "c1", name: "shout", arguments: JSON.stringify({ word: input }) }],
        stop: "tool_calls",
        usage: { inputTokens: 3, outputTokens: 2 },
      };
    },
  };
}

const shouter = defineAgent({
  name: "shouter",
  instructions: "Shout the word.",
  model: "mine:first",
  tools: [
    defineTool({
      name: "shout",
      description: "Shout a word.",
      parameters: z.object({ word: z.string() }),
      run: ({ word }) => word.toUpperCase(),
    }),
  ],
});

let opened: TestRunlog | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

describe("a model provider of the user's own", () => {
  it("runs an agent on it through openLocal, called with the name after its prefix", async () => {
    const dir = tempDataDir("own-model");
    const names: string[] = [];
    const local = await openLocal({
      dataDir: dir,
      agents: { shouter },
      models: {
        mine: (name) => {
          names.push(name);
          return shouting(name);
        },
      },
    });
    try {
      const result = await local.runlog.start({ agent: "shouter", input: "hello", model: "mine:second" });
      expect(result).toMatchObject({ status: "completed", output: "second heard: HELLO" });
      expect(names).toEqual(["second"]);
      const responses = (await local.runlog.events(result.runId)).filter((e) => e.type === "model_response");
      expect(responses).toMatchObject([
        { model: "mine:second", stop: "tool_calls", usage: { inputTokens: 3, outputTokens: 2 } },
        { model: "mine:second", stop: "stop" },
      ]);
    } finally {
      await local.close();
      cleanup(dir);
    }
  });

  it("runs in the test runlog too, with the agent's own default spec", async () => {
    opened = await createTestRunlog({ agents: { shouter }, models: { mine: shouting } });
    const result = await opened.runlog.start({ agent: "shouter", input: "kiwi" });
    expect(result.output).toBe("first heard: KIWI");
  });

  it("refuses an unknown prefix at start, before anything is written, listing the known prefixes", async () => {
    opened = await createTestRunlog({ agents: { shouter }, models: { mine: shouting } });
    const thrown = await opened.runlog
      .start({ agent: "shouter", input: "x", model: "theirs:big", runId: "never" })
      .catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(UnknownModelError);
    expect(thrown).toMatchObject({
      code: "unknown_model",
      field: "model",
      spec: "theirs:big",
      prefixes: ["scripted", "openai", "bedrock", "mine"],
    });
    expect((thrown as Error).message).toContain("scripted:, openai:, bedrock:, mine:");
    await expect(opened.runlog.events("never")).rejects.toMatchObject({ code: "not_found" });
    expect((await opened.runlog.list({})).runs).toEqual([]);
  });

  it.each(["mine: second", "mine:second ", "openai: gpt-4.1-mini", "bedrock: amazon.nova-lite-v1:0"])(
    "refuses %j (a blank at either end of the name) at start and at resume, writing nothing",
    async (spec) => {
      opened = await createTestRunlog({ agents: { shouter }, models: { mine: shouting } });
      const start = opened.runlog.start({ agent: "shouter", input: "x", model: spec, runId: "blank" });
      await expect(start).rejects.toBeInstanceOf(InvalidInputError);
      await expect(start).rejects.toMatchObject({
        field: "model",
        message: expect.stringContaining("starts or ends with a blank"),
      });
      expect((await opened.runlog.list({})).runs).toEqual([]);
      const done = await opened.runlog.start({ agent: "shouter", input: "kiwi", runId: "kept" });
      const before = await opened.runlog.events(done.runId);
      const resume = opened.runlog.resume({ runId: done.runId, model: spec, input: "again" });
      await expect(resume).rejects.toMatchObject({ name: "InvalidInputError", field: "model" });
      expect(await opened.runlog.events(done.runId)).toEqual(before);
    },
  );

  it.each<[string, unknown, RegExp]>([
    ["a prefix with a colon", { "my:x": shouting }, /models\.my:x: a prefix is a letter/],
    ["a built-in prefix", { openai: shouting }, /models\.openai: openai: is built in/],
    ["a provider that is not a function", { mine: { call: 1 } }, /models\.mine is not a function/],
    ["not an object", [shouting], /models must be an object/],
  ])("refuses %s when runlog opens", async (_, models, message) => {
    const thrown = await createTestRunlog({ agents: { shouter }, models: models as never }).catch(
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(InvalidInputError);
    expect(thrown).toMatchObject({ field: "models", message: expect.stringMatching(message) });
  });

  it.each([
    [
      "a call with an empty id",
      [{ id: "", name: "shout", arguments: "{}" }],
      /broken:x returned a reply runlog cannot record: reply\.toolCalls\.0\.id/,
    ],
    [
      "two calls under one id",
      [
        { id: "a", name: "shout", arguments: '{"word":"one"}' },
        { id: "a", name: "shout", arguments: '{"word":"two"}' },
      ],
      /reply\.toolCalls\[1\]\.id "a" is the id of toolCalls\[0\] too/,
    ],
  ])(
    "refuses, naming the field, a reply that is not a ModelReply (%s), and records it as a rejection",
    async (_, toolCalls, message) => {
      const broken = (): Model => ({
        spec: "broken:x",
        call: async () => ({ text: "hi", toolCalls, stop: "tool_calls" }),
      });
      opened = await createTestRunlog({ agents: { shouter }, models: { broken } });
      const result = await opened.runlog.start({ agent: "shouter", input: "x", model: "broken:x" });
      const events = await opened.events(result.runId);
      expect(events.some((e) => e.type === "model_response")).toBe(false);
      expect(events.at(-1)).toMatchObject({
        type: "model_failed",
        retryable: false,
        error: { name: "ModelRejectedError", message: expect.stringMatching(message) },
      });
      // The log still reads: the run can be resumed once the model behaves.
      expect((await opened.runlog.resumePoint(result.runId)).resumable).toBe(true);
    },
  );

  it("says which provider failed to make its model, before a run is written", async () => {
    const keyless = () => {
      throw new Error("set MINE_KEY");
    };
    opened = await createTestRunlog({ agents: { shouter }, models: { mine: keyless } });
    const thrown = await opened.runlog
      .start({ agent: "shouter", input: "x", runId: "never" })
      .catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(ModelRejectedError);
    expect((thrown as Error).message).toBe(
      "mine:first: provider mine could not make the model: set MINE_KEY",
    );
    expect((await opened.runlog.list({})).runs).toEqual([]);
  });
});
