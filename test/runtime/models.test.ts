import { afterEach, describe, expect, it, vi } from "vitest";
import { InvalidInputError, ModelRejectedError } from "../../lib/core/errors.ts";
import { modelResolver } from "../../lib/runtime/models.ts";

afterEach(() => vi.unstubAllEnvs());

describe("modelResolver", () => {
  it("refuses an openai: model without a key when the spec is named, before any call", () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    const resolve = modelResolver();
    expect(() => resolve("openai:gpt-4.1-mini")).toThrow(ModelRejectedError);
    expect(() => resolve("openai:gpt-4.1-mini")).toThrow(/openai:gpt-4.1-mini: .*set OPENAI_API_KEY/);
  });

  it("accepts the key from the environment or from its options, and builds each model once", () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-test");
    const resolve = modelResolver();
    const model = resolve("openai:llama3.1:8b");
    expect(model.spec).toBe("openai:llama3.1:8b");
    expect(resolve("openai:llama3.1:8b")).toBe(model);
    vi.stubEnv("OPENAI_API_KEY", "");
    expect(modelResolver({ openai: { apiKey: "sk-given" } })("openai:m").spec).toBe("openai:m");
  });

  it("names the specs it knows when given another", () => {
    expect(() => modelResolver()("anthropic:claude")).toThrow(InvalidInputError);
    expect(() => modelResolver()("anthropic:claude")).toThrow(
      /use scripted:FILE, scripted:demo or openai:MODEL/,
    );
  });
});
