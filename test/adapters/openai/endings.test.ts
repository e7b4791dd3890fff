import { describe, expect, it } from "vitest";
import { createOpenAIModel, type OpenAIModelOptions } from "../../../lib/adapters/openai/index.ts";
import { ModelRejectedError } from "../../../lib/core/errors.ts";
import type { ModelRequest } from "../../../lib/ports/model.ts";
import {
  contextLengthError,
  droppedStream,
  errorReply,
  type FakeReply,
  refusalReply,
  stalledStream,
  streamError,
  textReply,
  toolCallsReply,
  useFakeOpenAI,
} from "../../helpers/fakeOpenAI.ts";

const openai = useFakeOpenAI();

const model = (options: Partial<OpenAIModelOptions> = {}) =>
  createOpenAIModel({ model: "gpt-test", apiKey: "sk-test", baseURL: openai.baseURL, ...options });

const request: ModelRequest = {
  runId: "run-1",
  turn: 3,
  instructions: "Be brief.",
  messages: [{ role: "user", content: "What is the weather in Paris and in Rome?" }],
  tools: [],
};

const answer = (reply: FakeReply, options: Partial<OpenAIModelOptions> = {}) => {
  openai.fake.enqueue(reply);
  return model(options).call(request);
};

describe("OpenAI model: how a response ends", () => {
  it.each([
    {
      ending: "finish_reason stop",
      reply: textReply(["Hel", "lo ", "there"]),
      stop: "stop",
      text: "Hello there",
    },
    {
      ending: "finish_reason length",
      reply: textReply(["Once upon", " a"], "length"),
      stop: "max_output",
      text: "Once upon a",
    },
    {
      ending: "finish_reason content_filter",
      reply: textReply(["I will"], "content_filter"),
      stop: "refusal",
      text: "I will",
    },
    {
      ending: "a refusal in the message",
      reply: refusalReply(["I'm sorry, ", "I can't help with that."]),
      stop: "refusal",
      text: "I'm sorry, I can't help with that.",
    },
    {
      ending: "a finish reason runlog does not know",
      reply: textReply(["Par"], "insufficient_system_resource"),
      stop: "insufficient_system_resource",
      text: "Par",
    },
    {
      ending: "an HTTP 400 context_length_exceeded",
      reply: contextLengthError(),
      stop: "context_full",
      text: "",
    },
    {
      ending: "a vLLM-style context error with no code",
      reply: errorReply(
        400,
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
      ),
      stop: "context_full",
      text: "",
    },
    {
      ending: "a context error sent inside the stream",
      reply: streamError([], "prompt is too long: 210000 tokens > 200000 maximum"),
      stop: "context_full",
      text: "",
    },
    {
      ending: "a connection dropped after some text",
      reply: droppedStream(["The weather ", "in Paris is"]),
      stop: "interrupted",
      text: "The weather in Paris is",
    },
    {
      ending: "an error event after some text",
      reply: streamError(["The weather "], "The server had an error while processing your request."),
      stop: "interrupted",
      text: "The weather ",
    },
  ])("$ending -> stop $stop", async ({ reply, stop, text }) => {
    const result = await answer(reply);
    expect(result.stop).toBe(stop);
    expect(result.text).toBe(text);
    expect(result.toolCalls).toEqual([]);
    expect(openai.fake.requestCount).toBe(1);
  });

  it("keeps the partial text when the stream stalls longer than timeoutMs", async () => {
    const result = await answer(stalledStream(["Paris is ", "sunny"]), { timeoutMs: 300, maxRetries: 0 });
    expect(result).toEqual({ text: "Paris is sunny", toolCalls: [], stop: "interrupted" });
  });

  it("records the usage from the final chunk", async () => {
    const result = await answer(textReply(["Hi"], "stop", { prompt_tokens: 1234, completion_tokens: 56 }));
    expect(result.usage).toEqual({ inputTokens: 1234, outputTokens: 56 });
  });
});

describe("OpenAI model: tool calls", () => {
  const weather = [
    { id: "call_paris", name: "get_weather", arguments: '{"city":"Paris","unit":"celsius"}' },
    { id: "call_rome", name: "get_weather", arguments: '{"city":"Rome","unit":"celsius"}' },
  ];

  it("assembles parallel calls whose id, name and arguments are split over interleaved deltas", async () => {
    const reply = toolCallsReply(weather, { pieceSize: 2 });
    expect(reply.deltas.length).toBeGreaterThan(30); // the arguments really arrive in many pieces
    const result = await answer(reply);
    expect(result.stop).toBe("tool_calls");
    expect(result.toolCalls).toEqual(weather);
    expect(result.text).toBe("");
    expect(result.usage).toEqual({ inputTokens: 11, outputTokens: 7 });
  });

  it("keeps the arguments as the raw text the model sent, even when they are not valid JSON", async () => {
    const broken = [{ id: "call_1", name: "get_weather", arguments: '{"city": "Par' }];
    const result = await answer(toolCallsReply(broken));
    expect(result.toolCalls).toEqual(broken);
  });

  it("keeps the text that came before the calls", async () => {
    const result = await answer(toolCallsReply(weather, { text: "Let me check." }));
    expect(result).toMatchObject({ text: "Let me check.", stop: "tool_calls", toolCalls: weather });
  });

  it("says tool_calls when a server ends a tool-calling turn with finish_reason stop", async () => {
    const result = await answer(toolCallsReply(weather, { finishReason: "stop" }));
    expect(result.stop).toBe("tool_calls");
    expect(result.toolCalls).toEqual(weather);
  });

  it("refuses two calls the server gave one id, as any model's reply is refused", async () => {
    const twins = weather.map((call) => ({ ...call, id: "call_same" }));
    const failure = await answer(toolCallsReply(twins)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelRejectedError);
    expect((failure as Error).message).toBe(
      'openai:gpt-test returned a reply runlog cannot record: reply.toolCalls[1].id "call_same" is the id of toolCalls[0] too; each tool call needs its own id',
    );
  });

  it("refuses (permanent) a call the server sent without a name, naming the field", async () => {
    const nameless = [weather[0]!, { ...weather[1]!, name: "" }];
    const failure = await answer(toolCallsReply(nameless)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelRejectedError);
    expect((failure as Error).message).toBe(
      'openai:gpt-test returned a reply runlog cannot record: reply.toolCalls[1].name is missing: the server sent tool call 1 (id "call_rome") without the name of the tool to run',
    );
  });

  it("drops calls cut off by the output limit", async () => {
    const result = await answer(toolCallsReply(weather, { finishReason: "length" }));
    expect(result).toMatchObject({ stop: "max_output", toolCalls: [] });
  });

  it("assembles a legacy function_call, naming it when the server gave no id", async () => {
    const reply: FakeReply = {
      kind: "stream",
      deltas: [
        { role: "assistant", function_call: { name: "get_weather", arguments: "" } },
        { function_call: { arguments: '{"city":' } },
        { function_call: { arguments: '"Oslo"}' } },
      ],
      ending: { finishReason: "function_call" },
    };
    const result = await answer(reply);
    expect(result.stop).toBe("tool_calls");
    expect(result.toolCalls).toEqual([{ id: "call_3_0", name: "get_weather", arguments: '{"city":"Oslo"}' }]);
  });

  it("drops partial calls when the connection breaks, keeping the text before them", async () => {
    const calls = toolCallsReply(weather, { text: "Checking both." });
    const reply: FakeReply = { ...calls, deltas: calls.deltas.slice(0, 6), ending: { drop: true } };
    const result = await answer(reply);
    expect(result).toEqual({ text: "Checking both.", toolCalls: [], stop: "interrupted" });
  });
});
