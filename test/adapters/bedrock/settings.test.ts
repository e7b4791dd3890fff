import { describe, expect, it } from "vitest";
import { converseSettings } from "../../../lib/adapters/bedrock/settings.ts";

describe("converseSettings", () => {
  it("maps the named settings to inferenceConfig and providerOptions to additionalModelRequestFields", () => {
    expect(converseSettings(undefined)).toEqual({});
    expect(converseSettings({ providerOptions: { top_k: 5 } })).toEqual({
      additionalModelRequestFields: { top_k: 5 },
    });
    expect(converseSettings({ maxOutputTokens: 9, stopSequences: ["X"] })).toEqual({
      inferenceConfig: { maxTokens: 9, stopSequences: ["X"] },
    });
  });
});
