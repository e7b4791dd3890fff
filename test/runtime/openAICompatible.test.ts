import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocal } from "../../lib/api/local.ts";
import { openAICompatible } from "../../lib/api/openAICompatible.ts";
import { InvalidInputError } from "../../lib/core/errors.ts";
import { createFakeOpenAI, textReply } from "../helpers/fakeOpenAI.ts";
import { cleanup, tempDataDir, testEnv } from "../support/cli.ts";

/** A second OpenAI-compatible endpoint under a prefix of the user's, beside (not instead of) `openai:`. */
const dir = tempDataDir("openai-compatible");
const gateway = createFakeOpenAI({ apiKey: "sk-gateway" });
const local = createFakeOpenAI({ apiKey: "ollama" });
let servers: { baseURL: string; close: () => Promise<void> }[];
beforeAll(async () => {
  servers = [await gateway.start(), await local.start()];
});
afterAll(async () => {
  for (const server of servers) await server.close();
  await cleanup(dir);
});

describe("openAICompatible", () => {
  it("serves its own prefix from its own endpoint, with the field for maxOutputTokens it was given", async () => {
    const [openai, ollama] = servers as unknown as [{ baseURL: string }, { baseURL: string }];
    gateway.enqueue(textReply(["from openai"]));
    local.enqueue(textReply(["from ollama"]));
    const runlog = await openLocal({
      dataDir: dir,
      env: testEnv({ OPENAI_API_KEY: "sk-gateway", OPENAI_BASE_URL: openai.baseURL }),
      models: {
        ollama: openAICompatible({ baseURL: ollama.baseURL, apiKey: "ollama", maxTokensField: "max_tokens" }),
      },
    });
    try {
      expect(
        await runlog.runlog.start({ agent: "demo", input: "hi", model: "openai:gpt-test" }),
      ).toMatchObject({ status: "completed", output: "from openai" });
      expect(
        await runlog.runlog.start({
          agent: "demo",
          input: "hi",
          model: "ollama:llama3.1:8b",
          modelSettings: { maxOutputTokens: 300 },
        }),
      ).toMatchObject({ status: "completed", output: "from ollama" });
    } finally {
      await runlog.close();
    }
    const asked = local.requests.at(-1)!;
    expect(asked.headers.authorization).toBe("Bearer ollama");
    expect(asked.body).toMatchObject({ model: "llama3.1:8b", max_tokens: 300, stream: true });
    expect(asked.body).not.toHaveProperty("max_completion_tokens");
    expect(gateway.requests).toHaveLength(1);
  });

  it.each([
    ["baseURL", { baseURL: "localhost:11434", apiKey: "k" }],
    ["baseURL", { baseURL: "ftp://models.example/v1", apiKey: "k" }],
    ["apiKey", { baseURL: "http://localhost/v1", apiKey: "" }],
    ["apiKey", { baseURL: "http://localhost/v1" }],
    ["maxTokensField", { baseURL: "http://localhost/v1", apiKey: "k", maxTokensField: "max_output_tokens" }],
    ["timeoutMs", { baseURL: "http://localhost/v1", apiKey: "k", timeoutMs: 0 }],
    ["maxRetries", { baseURL: "http://localhost/v1", apiKey: "k", maxRetries: -1 }],
    ["organization", { baseURL: "http://localhost/v1", apiKey: "k", organization: " " }],
    ["options", undefined],
    ["maxTokenField", { baseURL: "http://localhost/v1", apiKey: "k", maxTokenField: "max_tokens" }],
  ])("refuses a bad %s before any run, naming it", (field, options) => {
    let thrown: unknown;
    try {
      openAICompatible(options as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidInputError);
    expect(thrown).toMatchObject({ field });
    expect((thrown as Error).message).toContain(`openAICompatible: ${field} must be`);
  });
});
