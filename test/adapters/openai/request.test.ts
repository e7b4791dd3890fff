import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { createOpenAIModel, parseOpenAISpec } from "../../../lib/adapters/openai/index.ts";
import { InvalidInputError, ModelRejectedError } from "../../../lib/core/errors.ts";
import { outputJsonSchema } from "../../../lib/core/structuredOutput.ts";
import type { ModelRequest } from "../../../lib/ports/model.ts";
import { createFakeOpenAI, type FakeOpenAI, textReply } from "../../helpers/fakeOpenAI.ts";

let fake: FakeOpenAI;
let server: { baseURL: string; close: () => Promise<void> };

beforeEach(async () => {
  fake = createFakeOpenAI();
  server = await fake.start();
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

const conversation: ModelRequest = {
  runId: "run-1",
  turn: 1,
  instructions: "You are a weather assistant.",
  messages: [
    { role: "user", content: "Weather in Paris and Rome?" },
    {
      role: "assistant",
      content: "",
      toolCalls: [
        { id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
        { id: "call_2", name: "get_weather", arguments: '{"city":"Rome"' },
      ],
    },
    { role: "tool", toolCallId: "call_1", name: "get_weather", content: "18°C, sunny", isError: false },
    { role: "tool", toolCallId: "call_2", name: "get_weather", content: "invalid arguments", isError: true },
    { role: "assistant", content: "Paris is sunny; Rome's lookup failed.", toolCalls: [] },
    { role: "user", content: "Try Rome again." },
  ],
  tools: [
    {
      name: "get_weather",
      description: "Current weather for a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  ],
};

describe("OpenAI model: the request it sends", () => {
  it("streams with usage, the instructions as the system message, and the tools as function tools", async () => {
    fake.enqueue(textReply(["ok"]));
    const model = createOpenAIModel({ model: "gpt-4.1-mini", apiKey: "sk-test", baseURL: server.baseURL });
    await model.call(conversation);

    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.authorization).toBe("Bearer sk-test");
    expect(sent.body).toMatchObject({
      model: "gpt-4.1-mini",
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(sent.body.messages).toEqual([
      { role: "system", content: "You are a weather assistant." },
      { role: "user", content: "Weather in Paris and Rome?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris"}' },
          },
          { id: "call_2", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "18°C, sunny" },
      { role: "tool", tool_call_id: "call_2", content: "invalid arguments" },
      { role: "assistant", content: "Paris is sunny; Rome's lookup failed." },
      { role: "user", content: "Try Rome again." },
    ]);
    expect(sent.body.tools).toEqual([
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Current weather for a city",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      },
    ]);
  });

  it("sends no tools and no system message when there are none", async () => {
    fake.enqueue(textReply(["ok"]));
    const model = createOpenAIModel({ model: "m", apiKey: "k", baseURL: server.baseURL });
    await model.call({
      ...conversation,
      instructions: "",
      tools: [],
      messages: [{ role: "user", content: "hi" }],
    });
    expect(fake.requests[0]!.body.messages).toEqual([{ role: "user", content: "hi" }]);
    expect(fake.requests[0]!.body).not.toHaveProperty("tools");
  });

  it("keeps the text of an assistant turn that also called tools", async () => {
    fake.enqueue(textReply(["ok"]));
    const model = createOpenAIModel({ model: "m", apiKey: "k", baseURL: server.baseURL });
    const call = { id: "c", name: "t", arguments: "{}" };
    await model.call({
      ...conversation,
      messages: [{ role: "assistant", content: "Checking.", toolCalls: [call] }],
    });
    expect(fake.requests[0]!.body.messages).toContainEqual({
      role: "assistant",
      content: "Checking.",
      tool_calls: [{ id: "c", type: "function", function: { name: "t", arguments: "{}" } }],
    });
  });
});

describe("OpenAI model: configuration", () => {
  it("names itself openai:<model>", () => {
    expect(createOpenAIModel({ model: "llama3.1:8b", apiKey: "k" }).spec).toBe("openai:llama3.1:8b");
  });

  it("reads OPENAI_API_KEY and OPENAI_BASE_URL like the SDK does", async () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-from-env");
    vi.stubEnv("OPENAI_BASE_URL", server.baseURL);
    fake.enqueue(textReply(["from env"]));
    const reply = await createOpenAIModel({ model: "m" }).call(conversation);
    expect(reply.text).toBe("from env");
    expect(fake.requests[0]!.headers.authorization).toBe("Bearer sk-from-env");
  });

  it("refuses to start without an API key, saying which variable to set", () => {
    vi.stubEnv("OPENAI_API_KEY", undefined);
    expect(() => createOpenAIModel({ model: "m" })).toThrow(ModelRejectedError);
    expect(() => createOpenAIModel({ model: "m" })).toThrow(/OPENAI_API_KEY/);
  });

  it("uses a client built elsewhere", async () => {
    fake.enqueue(textReply(["custom"]));
    const client = new OpenAI({ apiKey: "sk-custom", baseURL: server.baseURL });
    const reply = await createOpenAIModel({ model: "m", client }).call(conversation);
    expect(reply.text).toBe("custom");
    expect(fake.requests[0]!.headers.authorization).toBe("Bearer sk-custom");
  });
});

describe("parseOpenAISpec", () => {
  it.each([
    ["openai:gpt-4.1-mini", "gpt-4.1-mini"],
    ["openai:llama3.1:8b", "llama3.1:8b"],
    ["openai:Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct"],
  ])("%s names %s", (spec, name) => {
    expect(parseOpenAISpec(spec)).toEqual({ model: name });
  });

  it.each(["gpt-4.1-mini", "scripted:demo", "openai:", "openai:  ", "openai: x", "openai:x "])(
    "rejects %j",
    (spec) => {
      expect(() => parseOpenAISpec(spec)).toThrow(InvalidInputError);
    },
  );
});

describe("OpenAI model: an agent's output schema", () => {
  const ask = async (output?: ModelRequest["output"]) => {
    fake.enqueue(textReply(['{"city":"Rome","celsius":20}']));
    const model = createOpenAIModel({ model: "gpt-4.1-mini", apiKey: "sk-test", baseURL: server.baseURL });
    await model.call({ ...conversation, ...(output === undefined ? {} : { output }) });
    return fake.requests.at(-1)!.body as Record<string, unknown>;
  };

  it("is sent as response_format json_schema, strict when every object is closed and fully required", async () => {
    const schema = outputJsonSchema(z.object({ city: z.string(), celsius: z.number() }));
    const body = await ask({ name: "forecaster", schema });
    expect(body.response_format).toEqual({
      type: "json_schema",
      json_schema: {
        name: "forecaster",
        strict: true,
        schema: {
          type: "object",
          properties: { city: { type: "string" }, celsius: { type: "number" } },
          required: ["city", "celsius"],
          additionalProperties: false,
        },
      },
    });
  });

  it("leaves strict off for a schema strict mode would reject (an optional property, a format)", async () => {
    for (const shape of [
      z.object({ city: z.string(), note: z.string().optional() }),
      z.object({ city: z.string(), at: z.iso.datetime() }),
      z.record(z.string(), z.number()),
    ]) {
      const body = await ask({ name: "forecaster", schema: outputJsonSchema(shape) });
      expect(body.response_format).toMatchObject({
        type: "json_schema",
        json_schema: { name: "forecaster" },
      });
      expect((body.response_format as { json_schema: object }).json_schema).not.toHaveProperty("strict");
    }
  });

  it("sends no response_format for an agent without one", async () => {
    expect(await ask()).not.toHaveProperty("response_format");
  });
});
