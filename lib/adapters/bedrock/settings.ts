import type { ConverseStreamCommandInput } from "@aws-sdk/client-bedrock-runtime";
import type { ModelSettingName } from "../../core/modelSettingNames.ts";
import type { ModelSettings } from "../../core/modelSettings.ts";

/** The settings a Bedrock model honours through Converse: every one runlog names. */
export const BEDROCK_SETTINGS: readonly ModelSettingName[] = [
  "temperature",
  "maxOutputTokens",
  "topP",
  "stopSequences",
  "providerOptions",
];

/**
 * The ConverseStream fields for a run's settings: the named ones in `inferenceConfig`,
 * providerOptions as `additionalModelRequestFields` (the model's own parameters, e.g. `top_k`).
 */
export function converseSettings(
  settings: ModelSettings | undefined,
): Pick<ConverseStreamCommandInput, "inferenceConfig" | "additionalModelRequestFields"> {
  if (settings === undefined) return {};
  const { temperature, maxOutputTokens, topP, stopSequences, providerOptions } = settings;
  const inferenceConfig = {
    ...(temperature === undefined ? {} : { temperature }),
    ...(maxOutputTokens === undefined ? {} : { maxTokens: maxOutputTokens }),
    ...(topP === undefined ? {} : { topP }),
    ...(stopSequences === undefined ? {} : { stopSequences }),
  };
  return {
    ...(Object.keys(inferenceConfig).length === 0 ? {} : { inferenceConfig }),
    // The SDK types a document loosely; a JSON object is one.
    ...(providerOptions === undefined
      ? {}
      : { additionalModelRequestFields: providerOptions as Record<string, never> }),
  };
}
