/*
 * The names of the model settings, and the words for settings a log recorded: what reading a run
 * needs of them (the CLI's show), without their schema (modelSettings.ts, zod), so a read loads
 * no zod.
 */

/** The setting names, in the order they are checked and printed. */
export const MODEL_SETTING_NAMES = [
  "temperature",
  "maxOutputTokens",
  "topP",
  "stopSequences",
  "providerOptions",
] as const;
export type ModelSettingName = (typeof MODEL_SETTING_NAMES)[number];

/** Settings by name, as a ModelSettings (modelSettings.ts) or a recorded event holds them. */
type Settings = Readonly<Partial<Record<ModelSettingName, unknown>>>;

/** The settings a ModelSettings names (for a recorded event: absent when there are none). */
export const settingNames = (settings: Settings | undefined): ModelSettingName[] =>
  MODEL_SETTING_NAMES.filter((name) => settings?.[name] !== undefined);

/** Settings as a short line for people: `temperature 0.2, maxOutputTokens 500, stop ["END"]`. */
export function describeSettings(settings: Settings | undefined): string {
  return settingNames(settings)
    .map((name) => `${name} ${JSON.stringify(settings?.[name])}`)
    .join(", ");
}
