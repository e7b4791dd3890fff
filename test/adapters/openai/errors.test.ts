import OpenAI, { type APIError } from "openai";
import { describe, expect, it } from "vitest";
import { createOpenAIModel, type OpenAIModelOptions } from "../../../lib/adapters/openai/index.ts";
import { errorCategory, ModelRejectedError, ModelUnavailableError } from "../../../lib/core/errors.ts";
import type { ModelRequest } from "../../../lib/ports/model.ts";
import {
  errorReply,
  hangup,
  rateLimited,
  serverError,
  silent,
  stalledStream,
  streamError,
  textReply,
  unauthorized,
  useFakeOpenAI,
  watchedClient,
} from "../../helpers/fakeOpenAI.ts";
import { rejectionOf } from "../../support/thrown.ts";

const openai = useFakeOpenAI();

const model = (options: Partial<OpenAIModelOptions> = {}) =>
  createOpenAIModel({ model: "gpt-test", apiKey: "sk-test", baseURL: openai.baseURL, ...options });

const request: ModelRequest = {
  runId: "run-1",
  turn: 0,
  instructions: "",
  messages: [{ role: "user", content: "hi" }],
  tools: [],
};

describe("OpenAI model: failures", () => {
  it("lets the SDK retry a 429 (Retry-After: 0), then replies once", async () => {
    openai.fake.enqueue(rateLimited("0"), textReply(["Hello"]));
    const reply = await model().call(request);
    expect(reply).toMatchObject({ text: "Hello", stop: "stop" });
    expect(openai.fake.requestCount).toBe(2);
  });

  it("turns a 429 left after the SDK's retries into ModelUnavailableError carrying Retry-After", async () => {
    openai.fake.enqueue(rateLimited("20"));
    const error = await rejectionOf(model({ maxRetries: 0 }).call(request));
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect(errorCategory(error)).toBe("RetryableError");
    expect(error.message).toContain("429 Rate limit reached for requests");
    expect(error.message).toContain("Retry-After: 20");
  });

  it("gives up on a repeated 500 after the SDK's retries with ModelUnavailableError", async () => {
    openai.fake.enqueue(serverError(), serverError(), serverError(), serverError());
    const error = await rejectionOf(model().call(request));
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect(error.message).toContain("500 The server had an error while processing your request.");
    expect(openai.fake.requestCount).toBe(3); // the first try and maxRetries (2) more
    expect((error.cause as APIError).status).toBe(500);
  });

  it("turns a 401 into ModelRejectedError with the provider's message, without retrying", async () => {
    openai.fake.enqueue(unauthorized(), textReply(["never served"]));
    const error = await rejectionOf(model().call(request));
    expect(error).toBeInstanceOf(ModelRejectedError);
    expect(errorCategory(error)).toBe("PermanentError");
    expect(error.message).toContain("401 Incorrect API key provided: sk-bad.");
    expect((error.cause as APIError).status).toBe(401);
    expect(openai.fake.requestCount).toBe(1);
  });

  it.each([
    [400, "Invalid value for 'tools[0].function.name'"],
    [403, "Project does not have access to model gpt-test"],
    [404, "The model `gpt-test` does not exist or you do not have access to it."],
    [422, "Unprocessable request"],
  ])("turns a %i into ModelRejectedError", async (status, message) => {
    openai.fake.enqueue(errorReply(status, message), textReply(["never served"]));
    const error = await rejectionOf(model().call(request));
    expect(error).toBeInstanceOf(ModelRejectedError);
    expect(error.message).toContain(`${status} ${message}`);
    expect(openai.fake.requestCount).toBe(1);
  });

  it("does not read a rate limit that mentions tokens as a full context", async () => {
    openai.fake.enqueue(
      errorReply(429, "Too many tokens, please wait before trying again.", { type: "throttling" }),
    );
    const error = await rejectionOf(model({ maxRetries: 0 }).call(request));
    expect(error).toBeInstanceOf(ModelUnavailableError);
  });

  it("lets the SDK retry a connection dropped before any response", async () => {
    openai.fake.enqueue(hangup(), textReply(["back"]));
    const reply = await model({ maxRetries: 1 }).call(request);
    expect(reply.text).toBe("back");
    expect(openai.fake.requestCount).toBe(2);
  });

  it("turns a connection failure left after the retries into ModelUnavailableError", async () => {
    openai.fake.enqueue(hangup());
    const error = await rejectionOf(model({ maxRetries: 0 }).call(request));
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect(error.message).toContain("Connection error.");
    // The endpoint it tried: a key meant for a gateway that went elsewhere shows.
    expect(error.message).toContain(`is unavailable at ${openai.baseURL.replace(/\/$/, "")}:`);
  });

  it("turns a request that gets no response within timeoutMs into ModelUnavailableError", async () => {
    openai.fake.enqueue(silent());
    const error = await rejectionOf(model({ maxRetries: 0, timeoutMs: 200 }).call(request));
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect(error.message).toContain("timed out");
  });

  it("turns a stream that breaks before any text into ModelUnavailableError", async () => {
    openai.fake.enqueue(streamError([], "The server had an error while processing your request."));
    const error = await rejectionOf(model().call(request));
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect(error.message).toContain("The server had an error while processing your request.");
    expect(openai.fake.requestCount).toBe(1); // the SDK never retries a response that has started
  });
});

describe("OpenAI model: the caller's abort", () => {
  it("rethrows the signal's reason when aborted before the call", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await rejectionOf(model().call({ ...request, signal: controller.signal }));
    expect(error.name).toBe("AbortError");
    expect(openai.fake.requestCount).toBe(0);
  });

  it("rethrows the signal's reason, not an interrupted reply, when aborted mid-stream", async () => {
    const controller = new AbortController();
    const reason = new Error("cancelled by the test");
    // Abort once the client has read the first bytes of the body, so some text has arrived.
    const abortAfterFirstRead: typeof fetch = async (url, init) => {
      const response = await fetch(url, init);
      const reader = response.body!.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(stream) {
          const { value, done } = await reader.read();
          if (done) return stream.close();
          stream.enqueue(value);
          controller.abort(reason);
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const client = new OpenAI({ apiKey: "sk-test", baseURL: openai.baseURL, fetch: abortAfterFirstRead });
    openai.fake.enqueue(stalledStream(["Partial "]));
    const error = await rejectionOf(model({ client }).call({ ...request, signal: controller.signal }));
    expect(error).toBe(reason);
  });

  it("ends the SDK's wait for a Retry-After at once when the run is cancelled during it", async () => {
    const controller = new AbortController();
    const reason = new Error("cancelled during the wait");
    openai.fake.enqueue(rateLimited("3600"));
    const { client, waitForAnswers } = watchedClient(openai.baseURL);
    // A deadline that never comes here: only the cancel can end the hour the SDK would wait.
    const call = model({ client }).call({
      ...request,
      signal: controller.signal,
      deadline: new AbortController().signal,
    });
    await waitForAnswers(1);
    controller.abort(reason);
    expect(await rejectionOf(call)).toBe(reason);
    expect(openai.fake.requestCount).toBe(1);
  });
});
