import { describe, expect, it } from "vitest";
import { createOpenAIModel } from "../../../lib/adapters/openai/index.ts";
import { ModelUnavailableError } from "../../../lib/core/errors.ts";
import type { ModelRequest } from "../../../lib/ports/model.ts";
import {
  rateLimited,
  stalledStream,
  textReply,
  useFakeOpenAI,
  watchedClient,
} from "../../helpers/fakeOpenAI.ts";

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
    openai.fake.enqueue(stalledStream(["Once upon", " a time"]));
    // The deadline comes once the client has the text, while the stream hangs.
    let seen = "";
    const onText = (text: string) => {
      seen += text;
      if (seen === "Once upon a time") deadline.abort();
    };
    const reply = await model().call({ ...request(deadline.signal), onText });
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
    const { client, waitForAnswers } = watchedClient(openai.baseURL);
    const call = createOpenAIModel({ model: "gpt-test", client }).call(request(deadline.signal));
    // The deadline comes once the 429 has been answered, while the SDK waits out its hour.
    await waitForAnswers(1);
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
