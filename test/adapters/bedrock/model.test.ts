import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createBedrockModel } from "../../../lib/adapters/bedrock/index.ts";
import { UNPARSED_ARGUMENTS } from "../../../lib/adapters/bedrock/request.ts";
import { ModelRejectedError, ModelUnavailableError } from "../../../lib/core/errors.ts";
import type { ModelRequest } from "../../../lib/ports/model.ts";
import {
  accessDenied,
  type ConverseServer,
  contextTooLong,
  converseEnv,
  cutStream,
  resetStream,
  serviceUnavailable,
  stalledStream,
  startConverseServer,
  streamException,
  textStream,
  throttled,
  toolUseStream,
  validationError,
} from "../../support/converseServer.ts";

let server: ConverseServer;
beforeAll(async () => {
  server = await startConverseServer();
});
afterAll(() => server.close());
beforeEach(() => {
  for (const [name, value] of Object.entries(converseEnv(server))) vi.stubEnv(name, value);
  return () => vi.unstubAllEnvs();
});

const MODEL_ID = "anthropic.claude-test-v1:0";
// One attempt unless a test is about the SDK's own retries, so a failure is seen as it comes.
const model = (maxAttempts = 1) => createBedrockModel({ modelId: MODEL_ID, maxAttempts });

const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  runId: "run-1",
  turn: 0,
  instructions: "Be brief.",
  messages: [{ role: "user", content: "Weather in Oslo?" }],
  tools: [],
  ...extra,
});

async function failureOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error("the call did not fail");
}

describe("Bedrock model: what is sent", () => {
  it("takes an empty AWS_REGION as unset: the profile's region signs the call", async () => {
    const home = mkdtempSync(join(tmpdir(), "runlog-bedrock-region-"));
    writeFileSync(join(home, "config"), "[default]\nregion = eu-west-3\n");
    vi.stubEnv("AWS_REGION", "");
    vi.stubEnv("AWS_PROFILE", "");
    vi.stubEnv("AWS_CONFIG_FILE", join(home, "config"));
    vi.stubEnv("AWS_SHARED_CREDENTIALS_FILE", join(home, "credentials"));
    server.enqueue(textStream(["ok"]));
    const reply = await model().call(request());
    expect(reply.text).toBe("ok");
    expect(server.requests.at(-1)!.authorization).toMatch(/\/\d+\/eu-west-3\/bedrock\//);
  });

  it("instructions as system, messages and tool results as content blocks, tools as toolSpecs, signed", async () => {
    server.enqueue(textStream(["ok"]));
    await model().call(
      request({
        messages: [
          { role: "user", content: "Weather in Oslo and Rome?" },
          {
            role: "assistant",
            content: "Looking.",
            toolCalls: [
              { id: "t1", name: "get_weather", arguments: '{"city":"Oslo"}' },
              { id: "t2", name: "get_weather", arguments: '{"city": "Ro' },
            ],
          },
          { role: "tool", toolCallId: "t1", name: "get_weather", content: "sunny", isError: false },
          { role: "tool", toolCallId: "t2", name: "get_weather", content: "bad arguments", isError: true },
        ],
        tools: [
          {
            name: "get_weather",
            description: "The weather in a city.",
            parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          },
        ],
      }),
    );
    const sent = server.requests.at(-1)!;
    expect(sent.modelId).toBe(MODEL_ID);
    expect(sent.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDTESTBEDROCK\/\d+\/us-east-1\/bedrock\//,
    );
    expect(sent.body.system).toEqual([{ text: "Be brief." }]);
    expect(sent.body.messages).toEqual([
      { role: "user", content: [{ text: "Weather in Oslo and Rome?" }] },
      {
        role: "assistant",
        content: [
          { text: "Looking." },
          { toolUse: { toolUseId: "t1", name: "get_weather", input: { city: "Oslo" } } },
          {
            toolUse: {
              toolUseId: "t2",
              name: "get_weather",
              input: { [UNPARSED_ARGUMENTS]: '{"city": "Ro' },
            },
          },
        ],
      },
      {
        role: "user",
        content: [
          { toolResult: { toolUseId: "t1", content: [{ text: "sunny" }], status: "success" } },
          { toolResult: { toolUseId: "t2", content: [{ text: "bad arguments" }], status: "error" } },
        ],
      },
    ]);
    expect(sent.body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: "get_weather",
            description: "The weather in a city.",
            inputSchema: {
              json: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
            },
          },
        },
      ],
    });
  });

  it("no system and no toolConfig when there are no instructions or tools", async () => {
    server.enqueue(textStream(["ok"]));
    await model().call(request({ instructions: "" }));
    const sent = server.requests.at(-1)!;
    expect(sent.body).not.toHaveProperty("system");
    expect(sent.body).not.toHaveProperty("toolConfig");
  });

  it("an agent's output schema as a system block after the instructions (Converse has no JSON mode for every model)", async () => {
    server.enqueue(textStream(['{"celsius":3}']));
    const schema = { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] };
    await model().call(request({ output: { name: "forecaster", schema } }));
    const sent = server.requests.at(-1)!;
    expect(sent.body.system).toEqual([
      { text: "Be brief." },
      { text: expect.stringContaining(`fits this JSON Schema:\n${JSON.stringify(schema)}`) },
    ]);
    expect(sent.body).not.toHaveProperty("outputConfig");
    // Without instructions, the schema's block is the only one.
    server.enqueue(textStream(['{"celsius":3}']));
    await model().call(request({ instructions: "", output: { name: "forecaster", schema } }));
    expect(server.requests.at(-1)!.body.system).toHaveLength(1);
  });
});

describe("Bedrock model: how a response ends", () => {
  it.each([
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["max_tokens", "max_output"],
    ["guardrail_intervened", "refusal"],
    ["content_filtered", "refusal"],
    ["model_context_window_exceeded", "context_full"],
    ["malformed_model_output", "malformed_model_output"],
  ])("stopReason %s is %s, the text streamed to onText and kept", async (stopReason, stop) => {
    server.enqueue(textStream(["Once ", "upon"], stopReason, { inputTokens: 11, outputTokens: 2 }));
    const seen: string[] = [];
    const reply = await model().call(request({ onText: (text) => seen.push(text) }));
    expect(reply).toEqual({
      text: "Once upon",
      toolCalls: [],
      stop,
      usage: { inputTokens: 11, outputTokens: 2 },
    });
    expect(seen).toEqual(["Once ", "upon"]);
  });

  it("tool_use: calls assembled from input pieces, bad JSON kept as the text the model sent", async () => {
    server.enqueue(
      toolUseStream(
        [
          { id: "tooluse_a", name: "get_weather", pieces: ['{"ci', 'ty":"Oslo"}'] },
          { id: "tooluse_b", name: "get_weather", pieces: ['{"city": "Ro'] },
          { id: "tooluse_c", name: "list_notes", pieces: [] },
        ],
        "Checking.",
      ),
    );
    const reply = await model().call(request());
    expect(reply).toEqual({
      text: "Checking.",
      stop: "tool_calls",
      toolCalls: [
        { id: "tooluse_a", name: "get_weather", arguments: '{"city":"Oslo"}' },
        { id: "tooluse_b", name: "get_weather", arguments: '{"city": "Ro' },
        { id: "tooluse_c", name: "list_notes", arguments: "{}" },
      ],
    });
  });

  it("tool_use: two calls of one toolUseId are refused, as any model's reply is", async () => {
    server.enqueue(
      toolUseStream([
        { id: "tooluse_a", name: "get_weather", pieces: ["{}"] },
        { id: "tooluse_a", name: "list_notes", pieces: [] },
      ]),
    );
    const failure = await failureOf(model().call(request()));
    expect(failure).toBeInstanceOf(ModelRejectedError);
    expect((failure as Error).message).toContain(
      'reply.toolCalls[1].id "tooluse_a" is the id of toolCalls[0] too',
    );
  });

  it.each([
    ["id", { id: "", name: "get_weather" }, "without its toolUseId"],
    ["name", { id: "tooluse_a", name: "" }, "without its name"],
  ])(
    "tool_use: a call without its %s is refused (permanent) naming the field",
    async (field, call, words) => {
      server.enqueue(toolUseStream([{ ...call, pieces: ["{}"] }]));
      const failure = await failureOf(model().call(request()));
      expect(failure).toBeInstanceOf(ModelRejectedError);
      expect((failure as Error).message).toBe(
        `bedrock:${MODEL_ID} returned a reply runlog cannot record: reply.toolCalls[0].${field} is missing: the model sent a toolUse (content block 0) ${words}`,
      );
    },
  );

  it("tool_use: a block started again at an index that held a call is a call of its own", async () => {
    const start = (id: string) => ({
      type: "contentBlockStart" as const,
      body: { contentBlockIndex: 0, start: { toolUse: { toolUseId: id, name: "get_weather" } } },
    });
    const input = (text: string) => ({
      type: "contentBlockDelta" as const,
      body: { contentBlockIndex: 0, delta: { toolUse: { input: text } } },
    });
    server.enqueue({
      kind: "stream",
      events: [
        { type: "messageStart", body: { role: "assistant" } },
        start("tooluse_a"),
        input('{"city":"Oslo"}'),
        start("tooluse_b"),
        input('{"city":"Rome"}'),
        { type: "messageStop", body: { stopReason: "tool_use" } },
      ],
      ending: "end",
    });
    expect((await model().call(request())).toolCalls).toEqual([
      { id: "tooluse_a", name: "get_weather", arguments: '{"city":"Oslo"}' },
      { id: "tooluse_b", name: "get_weather", arguments: '{"city":"Rome"}' },
    ]);
  });

  it("a refused prompt that does not fit (ValidationException: input is too long) is context_full", async () => {
    server.enqueue(contextTooLong());
    expect(await model().call(request())).toEqual({ text: "", toolCalls: [], stop: "context_full" });
  });

  it("a stream cut after some text keeps it as interrupted", async () => {
    server.enqueue(cutStream(["Once ", "upon"]));
    expect(await model().call(request())).toEqual({ text: "Once upon", toolCalls: [], stop: "interrupted" });
  });
});

describe("Bedrock model: errors, classified as the OpenAI model classifies its own", () => {
  it.each([
    ["throttling", throttled(), ModelUnavailableError],
    ["a 503", serviceUnavailable(), ModelUnavailableError],
    [
      "a throttlingException event before any text",
      streamException("throttlingException", "slow down"),
      ModelUnavailableError,
    ],
    [
      "a modelStreamErrorException event",
      streamException("modelStreamErrorException", "model broke"),
      ModelUnavailableError,
    ],
    ["a stream cut before any text", cutStream([]), ModelUnavailableError],
    ["a stream reset before any text", resetStream(), ModelUnavailableError],
    ["a validation error", validationError(), ModelRejectedError],
    ["access denied", accessDenied(), ModelRejectedError],
    [
      "a validationException event",
      streamException("validationException", "bad request"),
      ModelRejectedError,
    ],
  ])("%s", async (_name, reply, kind) => {
    server.enqueue(reply);
    const error = await failureOf(model().call(request()));
    expect(error).toBeInstanceOf(kind);
    expect((error as Error).message).toMatch(/^bedrock:anthropic\.claude-test-v1:0 /);
  });

  it("the SDK retries a throttled request itself, and the answer that follows is the reply", async () => {
    const before = server.requests.length;
    server.enqueue(throttled(), textStream(["Fine."]));
    expect(await model(3).call(request())).toMatchObject({ text: "Fine.", stop: "stop" });
    expect(server.requests.length - before).toBe(2);
  });

  it("no credentials anywhere is a rejection naming the spec", async () => {
    vi.stubEnv("AWS_ACCESS_KEY_ID", "");
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", "");
    vi.stubEnv("AWS_PROFILE", "runlog-no-such-profile");
    vi.stubEnv("AWS_CONFIG_FILE", "/nonexistent/config");
    vi.stubEnv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/credentials");
    vi.stubEnv("AWS_EC2_METADATA_DISABLED", "true");
    const error = await failureOf(model().call(request()));
    expect(error).toBeInstanceOf(ModelRejectedError);
  });
});

describe("Bedrock model: the deadline and a cancel", () => {
  it("the deadline cuts off a stalled stream and keeps its text as interrupted", async () => {
    server.enqueue(stalledStream(["Once ", "upon"]));
    const deadline = new AbortController();
    let seen = "";
    const reply = await model().call(
      request({
        deadline: deadline.signal,
        onText: (text) => {
          seen += text;
          if (seen === "Once upon") deadline.abort();
        },
      }),
    );
    expect(reply).toEqual({ text: "Once upon", toolCalls: [], stop: "interrupted" });
  });

  it("a deadline before any text is ModelUnavailableError", async () => {
    server.enqueue(stalledStream([]));
    const before = server.requests.length;
    const deadline = new AbortController();
    const call = model().call(request({ deadline: deadline.signal }));
    await waitFor(() => server.requests.length > before);
    deadline.abort();
    expect(await failureOf(call)).toBeInstanceOf(ModelUnavailableError);
  });

  it("a cancel rethrows the signal's reason, whatever streamed", async () => {
    server.enqueue(stalledStream(["Once "]));
    const stop = new AbortController();
    const reason = new Error("cancelled by test");
    const error = await failureOf(
      model().call(request({ signal: stop.signal, onText: () => stop.abort(reason) })),
    );
    expect(error).toBe(reason);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
