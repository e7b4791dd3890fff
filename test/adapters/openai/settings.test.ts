import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOpenAIModel } from "../../../lib/adapters/openai/index.ts";
import type { ModelRequest } from "../../../lib/ports/model.ts";
import { createFakeOpenAI, type FakeOpenAI, textReply } from "../../helpers/fakeOpenAI.ts";

let fake: FakeOpenAI;
let server: { baseURL: string; close: () => Promise<void> };
beforeEach(async () => {
  fake = createFakeOpenAI();
  server = await fake.start();
});
afterEach(() => server.close());

const request: ModelRequest = {
  runId: "run-1",
  turn: 0,
  instructions: "",
  messages: [{ role: "user", content: "Hi" }],
  tools: [],
};
const bodyOf = async (options: { maxTokensField?: "max_tokens" }, settings?: ModelRequest["settings"]) => {
  fake.enqueue(textReply(["Hello."]));
  const model = createOpenAIModel({
    model: "gpt-test",
    apiKey: "sk-test",
    baseURL: server.baseURL,
    ...options,
  });
  await model.call({ ...request, ...(settings === undefined ? {} : { settings }) });
  return fake.requests.at(-1)!.body;
};

describe("an OpenAI-compatible request's model settings", () => {
  it("sends none of the setting fields when the run has no settings", async () => {
    const body = await bodyOf({});
    for (const field of ["temperature", "max_completion_tokens", "max_tokens", "top_p", "stop"])
      expect(body).not.toHaveProperty(field);
  });

  it("sends maxOutputTokens as max_tokens to a server that wants the older name", async () => {
    const body = await bodyOf({ maxTokensField: "max_tokens" }, { maxOutputTokens: 42 });
    expect(body).toMatchObject({ max_tokens: 42 });
    expect(body).not.toHaveProperty("max_completion_tokens");
  });

  it("merges providerOptions into the body, never over runlog's own fields or the named settings", async () => {
    const body = await bodyOf(
      {},
      { temperature: 0.5, providerOptions: { seed: 3, temperature: 2, model: "other", stream: false } },
    );
    expect(body).toMatchObject({ seed: 3, temperature: 0.5, model: "gpt-test", stream: true });
  });
});
