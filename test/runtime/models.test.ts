import { afterEach, describe, expect, it, vi } from "vitest";
import { ModelRejectedError, UnknownModelError } from "../../lib/core/errors.ts";
import { modelResolver } from "../../lib/runtime/models.ts";

afterEach(() => vi.unstubAllEnvs());

describe("modelResolver", () => {
  it("refuses an openai: model without a key when the spec is named, before any call", () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    const resolve = modelResolver();
    expect(() => resolve("openai:gpt-4.1-mini")).toThrow(ModelRejectedError);
    expect(() => resolve("openai:gpt-4.1-mini")).toThrow(/openai:gpt-4.1-mini: .*set OPENAI_API_KEY/);
  });

  it("takes the key from its options, never from the environment, and builds each model once", () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-in-the-environment");
    expect(() => modelResolver()("openai:m")).toThrow(/set OPENAI_API_KEY/);
    const resolve = modelResolver({ openai: { apiKey: "sk-given" } });
    const model = resolve("openai:llama3.1:8b");
    expect(model.spec).toBe("openai:llama3.1:8b");
    expect(resolve("openai:llama3.1:8b")).toBe(model);
  });

  it("names the specs it knows when given another", () => {
    expect(() => modelResolver()("anthropic:claude")).toThrow(UnknownModelError);
    expect(() => modelResolver()("anthropic:claude")).toThrow(/known prefixes are scripted:, openai:/);
  });
});
