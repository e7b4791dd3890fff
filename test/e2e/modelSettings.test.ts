import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { InvalidInputError } from "../../lib/core/errors.ts";
import { defineAgent, type Model } from "../../lib/index.ts";
import { createTestRunlog, type TestRunlog } from "../../lib/testing/index.ts";
import { createFakeOpenAI, textReply } from "../helpers/fakeOpenAI.ts";
import {
  type ConverseServer,
  converseEnv,
  startConverseServer,
  textStream,
} from "../support/converseServer.ts";

/** An agent's model settings, as the OpenAI-compatible server and ConverseStream receive them. */
const OPENAI = "openai:gpt-test";
const BEDROCK = "bedrock:us.anthropic.claude-test-v1:0";
const writer = defineAgent({
  name: "writer",
  instructions: "Write.",
  model: OPENAI,
  modelSettings: {
    temperature: 0.3,
    maxOutputTokens: 200,
    stopSequences: ["END"],
    providerOptions: { seed: 7 },
  },
});
const bedrockWriter = defineAgent({
  name: "bedrock-writer",
  instructions: "Write.",
  model: BEDROCK,
  modelSettings: { temperature: 0.2, maxOutputTokens: 300, topP: 0.9, providerOptions: { top_k: 40 } },
});
const echo = (spec: string, supportedSettings?: Model["supportedSettings"]): Model => ({
  spec,
  ...(supportedSettings === undefined ? {} : { supportedSettings }),
  call: async () => ({ text: "echo", toolCalls: [], stop: "stop" }),
});
const echoer = defineAgent({
  name: "echoer",
  instructions: "",
  model: "echo:plain",
  modelSettings: { temperature: 0.5 },
});

const fake = createFakeOpenAI();
let openaiServer: { baseURL: string; close: () => Promise<void> };
let converse: ConverseServer;
let runlog: TestRunlog;
beforeAll(async () => {
  openaiServer = await fake.start();
  converse = await startConverseServer();
});
afterAll(async () => {
  await openaiServer.close();
  await converse.close();
});
beforeEach(async () => {
  for (const [name, value] of Object.entries(converseEnv(converse))) vi.stubEnv(name, value);
  vi.stubEnv("OPENAI_BASE_URL", openaiServer.baseURL);
  vi.stubEnv("OPENAI_API_KEY", "sk-test");
  runlog = await createTestRunlog({
    agents: { writer, "bedrock-writer": bedrockWriter, echoer },
    models: {
      echo: (name) => echo(`echo:${name}`, name === "temperature-only" ? ["temperature"] : undefined),
    },
  });
});
afterEach(async () => {
  await runlog.close();
  vi.unstubAllEnvs();
});

const openaiBody = () => fake.requests.at(-1)!.body;
const converseBody = () => converse.requests.at(-1)!.body as Record<string, unknown>;
const firstEvent = async (runId: string) => (await runlog.events(runId))[0];
const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(InvalidInputError);
  return error as InvalidInputError;
};
const runIds = async () => (await runlog.runlog.list()).runs.map((run) => run.runId);

describe("an agent's model settings", () => {
  it("reach the OpenAI-compatible server's request body as set, and are in run_started", async () => {
    fake.enqueue(textReply(["Done."]));
    const result = await runlog.runlog.start({ agent: "writer", input: "Go" });
    expect(result.status).toBe("completed");
    expect(openaiBody()).toMatchObject({
      model: "gpt-test",
      temperature: 0.3,
      max_completion_tokens: 200,
      stop: ["END"],
      seed: 7,
    });
    expect(openaiBody()).not.toHaveProperty("top_p");
    expect(await firstEvent(result.runId)).toMatchObject({
      type: "run_started",
      modelSettings: {
        temperature: 0.3,
        maxOutputTokens: 200,
        stopSequences: ["END"],
        providerOptions: { seed: 7 },
      },
    });
  });

  it("reach the ConverseStream request as inferenceConfig and additionalModelRequestFields, and are in run_started", async () => {
    converse.enqueue(textStream(["Done."]));
    const result = await runlog.runlog.start({ agent: "bedrock-writer", input: "Go" });
    expect(result.status).toBe("completed");
    expect(converseBody()).toMatchObject({
      inferenceConfig: { temperature: 0.2, maxTokens: 300, topP: 0.9 },
      additionalModelRequestFields: { top_k: 40 },
    });
    expect(await firstEvent(result.runId)).toMatchObject({
      modelSettings: { temperature: 0.2, maxOutputTokens: 300, topP: 0.9, providerOptions: { top_k: 40 } },
    });
  });

  it("are changed for one run at start: the settings named replace the agent's, the others stay", async () => {
    fake.enqueue(textReply(["Done."]));
    const result = await runlog.runlog.start({
      agent: "writer",
      input: "Go",
      modelSettings: { temperature: 0.9, maxOutputTokens: 50, topP: 0.5 },
    });
    expect(openaiBody()).toMatchObject({
      temperature: 0.9,
      max_completion_tokens: 50,
      top_p: 0.5,
      stop: ["END"],
    });
    expect((await firstEvent(result.runId)) as unknown).toMatchObject({
      modelSettings: { temperature: 0.9, maxOutputTokens: 50, topP: 0.5, stopSequences: ["END"] },
    });
  });

  it("refuse a start that asks for more output tokens than the agent allows, writing nothing", async () => {
    const requests = fake.requestCount;
    const error = await refusal(
      runlog.runlog.start({
        agent: "writer",
        input: "Go",
        runId: "over-cap",
        modelSettings: { maxOutputTokens: 201 },
      }),
    );
    expect(error.field).toBe("modelSettings.maxOutputTokens");
    expect(error.message).toContain("above the 200 the agent allows");
    expect(await runIds()).not.toContain("over-cap");
    expect(fake.requestCount).toBe(requests);
  });

  it("refuse a setting out of its limits, naming it", async () => {
    const error = await refusal(
      runlog.runlog.start({ agent: "writer", input: "Go", modelSettings: { temperature: 3 } }),
    );
    expect(error.field).toBe("modelSettings.temperature");
    expect(error.message).toContain("from 0 to 2");
  });

  it.each([
    ["declares no supportedSettings", "echoer", "echo:plain", {}, "temperature"],
    ["declares only temperature", "echoer", "echo:temperature-only", { topP: 0.5 }, "topP"],
  ])(
    "a model that %s refuses what it cannot honour at start, with nothing written",
    async (_, agent, model, asked, setting) => {
      const runId = `unsupported-${setting}`;
      const error = await refusal(
        runlog.runlog.start({ agent, input: "Go", model, runId, modelSettings: asked }),
      );
      expect(error.field).toBe(`modelSettings.${setting}`);
      expect(error.message).toContain(model);
      expect(error.message).toContain(`cannot honour ${setting}`);
      expect(await runIds()).not.toContain(runId);
    },
  );

  it("a resume calls the model with the recorded settings, and may change them like a start", async () => {
    fake.enqueue(textReply(["Once upon"], "length"));
    const first = await runlog.runlog.start({
      agent: "writer",
      input: "Go",
      modelSettings: { temperature: 0.1 },
    });
    expect(first.status).toBe("interrupted");
    fake.enqueue(textReply([" a time."]));
    await runlog.runlog.resume({ runId: first.runId });
    expect(openaiBody()).toMatchObject({ temperature: 0.1, max_completion_tokens: 200, stop: ["END"] });

    fake.enqueue(textReply(["Once"], "length"));
    expect((await runlog.runlog.send(first.runId, "Once more")).status).toBe("interrupted");
    expect(openaiBody()).toMatchObject({ temperature: 0.1 });
    fake.enqueue(textReply([" more."]));
    await runlog.runlog.resume({ runId: first.runId, modelSettings: { temperature: 1.2 } });
    expect(openaiBody()).toMatchObject({ temperature: 1.2, max_completion_tokens: 200 });
    const resumed = (await runlog.events(first.runId)).filter((event) => event.type === "resumed").at(-1);
    expect(resumed).toMatchObject({ modelSettings: { temperature: 1.2 } });
    await expect(
      runlog.runlog.resume({ runId: first.runId, modelSettings: { maxOutputTokens: 1000 } }),
    ).rejects.toMatchObject({ field: "modelSettings.maxOutputTokens" });
  });

  it("a fork calls the model with its parent's recorded settings, or those it is given", async () => {
    fake.enqueue(textReply(["Done."]));
    const parent = await runlog.runlog.start({
      agent: "writer",
      input: "Go",
      modelSettings: { temperature: 0.4 },
    });
    fake.enqueue(textReply(["Forked."]));
    const kept = await runlog.runlog.fork({ runId: parent.runId, input: "Another" });
    expect(kept.status).toBe("completed");
    expect(openaiBody()).toMatchObject({ temperature: 0.4, max_completion_tokens: 200 });
    fake.enqueue(textReply(["Forked again."]));
    await runlog.runlog.fork({ runId: parent.runId, input: "Another", modelSettings: { topP: 0.3 } });
    expect(openaiBody()).toMatchObject({ temperature: 0.4, top_p: 0.3 });
  });
});
