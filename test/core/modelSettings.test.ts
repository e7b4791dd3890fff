import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../../lib/core/errors.ts";
import { describeSettings } from "../../lib/core/modelSettingNames.ts";
import { assertSupported, checkModelSettings, settingsForRun } from "../../lib/core/modelSettings.ts";

const refusal = (act: () => unknown) => {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return error as InvalidInputError;
  }
  throw new Error("expected a refusal");
};

describe("checkModelSettings", () => {
  it.each([
    [{ temperature: -0.1 }, "modelSettings.temperature", "from 0 to 2"],
    [{ maxOutputTokens: 0 }, "modelSettings.maxOutputTokens", "whole number from 1"],
    [{ maxOutputTokens: 1.5 }, "modelSettings.maxOutputTokens", "whole number from 1"],
    [{ topP: 0 }, "modelSettings.topP", "above 0, at most 1"],
    [{ stopSequences: [] }, "modelSettings.stopSequences", "1 to 4 non-empty strings"],
    [{ stopSequences: ["a", "b", "c", "d", "e"] }, "modelSettings.stopSequences", "1 to 4"],
    [{ providerOptions: { big: "x".repeat(5000) } }, "modelSettings.providerOptions", "4096 bytes"],
    [{ seed: 1 }, "modelSettings.seed", "not a model setting"],
    ["hot", "modelSettings", "must be an object"],
  ])("refuses %j naming %s", (value, field, words) => {
    const error = refusal(() => checkModelSettings(value));
    expect(error.field).toBe(field);
    expect(error.message).toContain(words);
  });

  it("refuses provider options that hold themselves, as not a JSON object, instead of throwing JSON's TypeError", () => {
    const circle: Record<string, unknown> = { seed: 7 };
    circle.again = circle;
    const error = refusal(() => checkModelSettings({ providerOptions: circle }));
    expect(error.field).toBe("modelSettings.providerOptions");
    expect(error.message).toContain("a JSON object of at most 4096 bytes");
  });

  it("keeps settings within their limits as given", () => {
    const settings = {
      temperature: 0,
      maxOutputTokens: 1,
      topP: 1,
      stopSequences: ["END"],
      providerOptions: {},
    };
    expect(checkModelSettings(settings)).toEqual(settings);
  });
});

describe("settingsForRun", () => {
  it("puts the asked settings over the base, and refuses more output tokens than the agent's", () => {
    const agent = { maxOutputTokens: 100, temperature: 0.2 };
    expect(settingsForRun(agent, agent, { temperature: 1, maxOutputTokens: 100 })).toEqual({
      temperature: 1,
      maxOutputTokens: 100,
    });
    expect(refusal(() => settingsForRun(agent, { topP: 0.5 }, { maxOutputTokens: 101 })).field).toBe(
      "modelSettings.maxOutputTokens",
    );
    // An agent that sets no cap leaves maxOutputTokens free.
    expect(settingsForRun({}, undefined, { maxOutputTokens: 5000 })).toEqual({ maxOutputTokens: 5000 });
  });
});

describe("assertSupported", () => {
  it("names the first setting the model cannot honour, and the model", () => {
    const error = refusal(() => assertSupported({ temperature: 1, topP: 0.5 }, "echo:x", ["temperature"]));
    expect(error.field).toBe("modelSettings.topP");
    expect(error.message).toBe(
      "modelSettings.topP: model echo:x cannot honour topP (it honours temperature)",
    );
    expect(() => assertSupported({ temperature: 1 }, "echo:x", ["temperature"])).not.toThrow();
    expect(() => assertSupported({}, "echo:x", undefined)).not.toThrow();
    expect(refusal(() => assertSupported({ providerOptions: {} }, "echo:x", undefined)).message).toContain(
      "declares no supportedSettings",
    );
  });
});

describe("describeSettings", () => {
  it("is described for people in the order of the setting names", () => {
    expect(describeSettings({ topP: 0.5, temperature: 0 })).toBe("temperature 0, topP 0.5");
  });
});
