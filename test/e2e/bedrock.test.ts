import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { CONTINUE_RESPONSE_NOTE, RETRY_RESPONSE_NOTE } from "../../lib/core/messages.ts";
import { defineAgent, defineTool } from "../../lib/index.ts";
import { createTestRunlog, type TestRunlog } from "../../lib/testing/index.ts";
import {
  type ConverseServer,
  contextTooLong,
  converseEnv,
  cutStream,
  startConverseServer,
  textStream,
  throttled,
  toolUseStream,
  validationError,
} from "../support/converseServer.ts";

/** Runs of a real agent on a `bedrock:` model, through runlog/testing, against a local ConverseStream. */
const MODEL = "bedrock:us.anthropic.claude-test-v1:0";
const cities: string[] = [];
const forecaster = defineAgent({
  name: "forecaster",
  instructions: "Answer with the weather.",
  model: MODEL,
  tools: [
    defineTool({
      name: "get_weather",
      description: "The weather in a city.",
      parameters: z.object({ city: z.string() }),
      run: ({ city }) => {
        cities.push(city);
        return `sunny in ${city}`;
      },
    }),
  ],
});

let server: ConverseServer;
let runlog: TestRunlog;
beforeAll(async () => {
  server = await startConverseServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  for (const [name, value] of Object.entries(converseEnv(server))) vi.stubEnv(name, value);
  runlog = await createTestRunlog({ agents: { forecaster } });
});
afterEach(async () => {
  await runlog.close();
  vi.unstubAllEnvs();
});

const start = (input = "Weather in Oslo?") => runlog.runlog.start({ agent: "forecaster", input });
const lastBody = () => server.requests.at(-1)!.body;
const responses = async (runId: string) =>
  (await runlog.events(runId)).filter((event) => event.type === "model_response");

describe("a run on a bedrock: model", () => {
  it("calls a tool, sends its result back as a toolResult, and completes", async () => {
    cities.length = 0;
    server.enqueue(
      toolUseStream(
        [{ id: "tooluse_1", name: "get_weather", pieces: ['{"city":', '"Oslo"}'] }],
        "Let me check.",
        {
          inputTokens: 20,
          outputTokens: 9,
        },
      ),
      textStream(["It is ", "sunny."], "end_turn", { inputTokens: 40, outputTokens: 4 }),
    );
    const result = await start();
    expect(result).toMatchObject({ status: "completed", output: "It is sunny." });
    expect(cities).toEqual(["Oslo"]);
    expect(await responses(result.runId)).toMatchObject([
      {
        model: MODEL,
        stop: "tool_calls",
        text: "Let me check.",
        toolCalls: [{ id: "tooluse_1", name: "get_weather", arguments: '{"city":"Oslo"}' }],
        usage: { inputTokens: 20, outputTokens: 9 },
      },
      { model: MODEL, stop: "stop", text: "It is sunny.", usage: { inputTokens: 40, outputTokens: 4 } },
    ]);
    const sent = lastBody();
    expect(server.requests.at(-1)!.modelId).toBe("us.anthropic.claude-test-v1:0");
    expect(sent.system).toEqual([{ text: "Answer with the weather." }]);
    expect(sent.toolConfig?.tools.map((tool) => tool.toolSpec.name)).toEqual(["get_weather"]);
    expect(sent.messages?.at(-1)).toEqual({
      role: "user",
      content: [
        { toolResult: { toolUseId: "tooluse_1", content: [{ text: "sunny in Oslo" }], status: "success" } },
      ],
    });
  });

  it("a throttled request is retried, and the run records one response", async () => {
    const before = server.requests.length;
    server.enqueue(throttled(), textStream(["Fine."]));
    const result = await start();
    expect(result).toMatchObject({ status: "completed", output: "Fine." });
    expect(server.requests.length - before).toBe(2);
    expect((await runlog.events(result.runId)).map((event) => event.type)).toEqual([
      "run_started",
      "model_response",
    ]);
  });

  it("max_tokens: kept, and resume asks the model to continue where it stopped", async () => {
    server.enqueue(textStream(["Once upon"], "max_tokens", { inputTokens: 12, outputTokens: 3 }));
    const cut = await start("Tell me a story");
    expect(cut).toMatchObject({ status: "interrupted" });
    expect(await responses(cut.runId)).toMatchObject([{ stop: "max_output", text: "Once upon" }]);

    server.enqueue(textStream([" a time."]));
    const resumed = await runlog.runlog.resume({ runId: cut.runId });
    // The answer is the cut text and its continuation, as one.
    expect(resumed).toMatchObject({ status: "completed", output: "Once upon a time." });
    expect(JSON.stringify(lastBody().messages)).toContain(CONTINUE_RESPONSE_NOTE);
  });

  it.each([
    ["guardrail_intervened", textStream(["I can't"], "guardrail_intervened"), "refused"],
    ["content_filtered", textStream([], "content_filtered"), "refused"],
    ["model_context_window_exceeded", textStream([], "model_context_window_exceeded"), "context_full"],
    ["a ValidationException saying the input is too long", contextTooLong(), "context_full"],
  ])("%s ends the run %s, and it is not retried", async (_name, reply, status) => {
    const before = server.requests.length;
    server.enqueue(reply);
    const result = await start();
    expect(result).toMatchObject({ status });
    expect(server.requests.length - before).toBe(1);
  });

  it("a stream cut after some text: the text kept, and resume retries the response", async () => {
    server.enqueue(cutStream(["Once ", "upon"]));
    const cut = await start("Tell me a story");
    expect(cut).toMatchObject({ status: "interrupted" });
    expect(await responses(cut.runId)).toMatchObject([{ stop: "interrupted", text: "Once upon" }]);

    server.enqueue(textStream(["Once upon a time."]));
    const resumed = await runlog.runlog.resume({ runId: cut.runId });
    expect(resumed).toMatchObject({ status: "completed", output: "Once upon a time." });
    const sent = JSON.stringify(lastBody().messages);
    expect(sent).toContain("Once upon");
    expect(sent).toContain(RETRY_RESPONSE_NOTE);
  });

  it("a validation error fails the run as rejected, once, with the input kept", async () => {
    const before = server.requests.length;
    server.enqueue(validationError("The provided model identifier is invalid."));
    const result = await start();
    expect(result).toMatchObject({ status: "failed" });
    expect(server.requests.length - before).toBe(1);
    const events = await runlog.events(result.runId);
    expect(events.at(-1)).toMatchObject({ type: "model_failed" });
    expect(JSON.stringify(events.at(-1))).toContain(
      "ValidationException: The provided model identifier is invalid.",
    );
  });
});
