import { once } from "node:events";
import type { Stream } from "openai/core/streaming";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { ReplyAssembler } from "../../../lib/adapters/openai/assemble.ts";
import { createOpenAIModel } from "../../../lib/adapters/openai/index.ts";
import { readReply } from "../../../lib/adapters/openai/read.ts";
import { ModelUnavailableError } from "../../../lib/core/errors.ts";
import type { ModelRequest } from "../../../lib/ports/model.ts";
import { rateLimited, stalledStream, textReply, useFakeOpenAI } from "../../helpers/fakeOpenAI.ts";

/**
 * Issue 14: a model call still under way when its step's deadline comes ends at once, keeping
 * what streamed, instead of running on until the Lambda function dies with it. The client's own
 * limits are left at what would outlast any test (10 minutes, a Retry-After of an hour), so only
 * the deadline can end these calls.
 */
const openai = useFakeOpenAI();

const request = (deadline: AbortSignal): ModelRequest => ({
  runId: "run-deadline",
  turn: 0,
  instructions: "",
  messages: [{ role: "user", content: "Write me a long story." }],
  tools: [],
  deadline,
});
const model = () =>
  createOpenAIModel({ model: "gpt-test", apiKey: "sk-test", baseURL: openai.baseURL, timeoutMs: 600_000 });

/**
 * A streamed response as the SDK gives it: `parts` of text, then nothing until it is aborted.
 * `waiting` is called once the client asks for more after the last part: the deadline comes then.
 */
function hangingStream(parts: string[], waiting: () => void): Stream<ChatCompletionChunk> {
  const controller = new AbortController();
  const chunk = (content: string): ChatCompletionChunk => ({
    id: "chatcmpl-deadline",
    object: "chat.completion.chunk",
    created: 1,
    model: "gpt-test",
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  });
  async function* chunks() {
    for (const part of parts) yield chunk(part);
    waiting();
    // The SDK ends its iteration quietly when its controller aborts.
    if (!controller.signal.aborted) await once(controller.signal, "abort");
  }
  return { controller, [Symbol.asyncIterator]: chunks } as unknown as Stream<ChatCompletionChunk>;
}

async function failureOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error("the call did not fail");
}

describe("OpenAI model: the step's deadline", () => {
  it("cuts off a response still streaming, and keeps its text as an interrupted reply", async () => {
    const deadline = new AbortController();
    const stream = hangingStream(["Once upon", " a time"], () => deadline.abort());
    const reply = await readReply(stream, new ReplyAssembler((i) => `call_${i}`), {
      spec: "openai:gpt-test",
      idleMs: 600_000,
      deadline: deadline.signal,
    });
    expect(reply).toMatchObject({ text: "Once upon a time", toolCalls: [], stop: "interrupted" });
  });

  it("ends a response that sent no text yet as unavailable, naming the deadline", async () => {
    const deadline = new AbortController();
    openai.fake.enqueue(stalledStream([], () => deadline.abort()));
    const error = await failureOf(model().call(request(deadline.signal)));
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as Error).message).toContain("deadline");
  });

  it("ends the SDK's wait for a Retry-After longer than the step has", async () => {
    const deadline = new AbortController();
    openai.fake.enqueue(rateLimited("3600"));
    const call = model().call(request(deadline.signal));
    // The deadline comes once the 429 has been answered, while the SDK waits out its hour.
    while (openai.fake.requestCount === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    deadline.abort();
    const error = await failureOf(call);
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as Error).message).toContain("deadline");
    expect(openai.fake.requestCount).toBe(1);
  });

  it("leaves a call whose deadline does not come to finish as usual", async () => {
    openai.fake.enqueue(textReply(["Hel", "lo"]));
    const reply = await model().call(request(new AbortController().signal));
    expect(reply).toMatchObject({ text: "Hello", stop: "stop" });
  });
});
