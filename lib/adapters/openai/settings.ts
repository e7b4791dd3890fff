import type { ModelSettingName } from "../../core/modelSettingNames.ts";
import type { ModelSettings } from "../../core/modelSettings.ts";

/** The settings an OpenAI-compatible model honours: every one runlog names. */
export const OPENAI_SETTINGS: readonly ModelSettingName[] = [
  "temperature",
  "maxOutputTokens",
  "topP",
  "stopSequences",
  "providerOptions",
];

/**
 * The request field that carries maxOutputTokens: `max_completion_tokens` (OpenAI's, and the only
 * one its reasoning models take), or `max_tokens` for servers that still want the older name.
 */
export type MaxTokensField = "max_completion_tokens" | "max_tokens";

/**
 * The Chat Completions body fields for a run's settings: providerOptions first, as extra fields of
 * the body, then the named settings over them (the request's own fields go over both).
 */
export function chatSettings(
  settings: ModelSettings | undefined,
  maxTokensField: MaxTokensField = "max_completion_tokens",
): Record<string, unknown> {
  if (settings === undefined) return {};
  const { temperature, maxOutputTokens, topP, stopSequences, providerOptions } = settings;
  return {
    ...providerOptions,
    ...(temperature === undefined ? {} : { temperature }),
    ...(maxOutputTokens === undefined ? {} : { [maxTokensField]: maxOutputTokens }),
    ...(topP === undefined ? {} : { top_p: topP }),
    ...(stopSequences === undefined ? {} : { stop: stopSequences }),
  };
}
