import * as z from "zod";
import { InvalidInputError } from "./errors.ts";
import { jsonObjectSchema, MAX_JSON_DEPTH } from "./metadata.ts";
import { MODEL_SETTING_NAMES, type ModelSettingName, settingNames } from "./modelSettingNames.ts";
import { givenJsonBytes } from "./utf8.ts";
import { WITHOUT_JIT } from "./withoutJit.ts";

/** The most a run's `providerOptions` may hold, as JSON text: provider switches, not a payload. */
export const MAX_PROVIDER_OPTIONS_BYTES = 4096;
/** The most stop sequences a run may give (OpenAI's Chat Completions and most Bedrock models take 4). */
export const MAX_STOP_SEQUENCES = 4;
/** The longest stop sequence, in characters. */
export const MAX_STOP_SEQUENCE_LENGTH = 100;
/** The most output tokens a run may ask one model call for (above any model's output window today). */
export const MAX_OUTPUT_TOKENS_LIMIT = 1_000_000;

/**
 * How the model is called on every turn of a run: set by its agent, changed for a run at start,
 * resume or fork, recorded in `run_started` (and on a `resumed` that changes them) so every later
 * call, a resume's and a fork's included, sends the same. Absent settings are the provider's default.
 */
export const ModelSettingsSchema = z.object({
  /** Sampling temperature, 0 to 2. */
  temperature: z.number().min(0).max(2).optional(),
  /** The most tokens one response may have. A run may ask for fewer than its agent's, never more. */
  maxOutputTokens: z.number().int().min(1).max(MAX_OUTPUT_TOKENS_LIMIT).optional(),
  /** Nucleus sampling: the probability mass the next token is drawn from, above 0, at most 1. */
  topP: z.number().gt(0).max(1).optional(),
  /** Text that ends a response where the model writes it (not included in the response). */
  stopSequences: z
    .array(z.string().min(1).max(MAX_STOP_SEQUENCE_LENGTH))
    .min(1)
    .max(MAX_STOP_SEQUENCES)
    .optional(),
  /**
   * Fields the provider's request takes that runlog has no name for, sent as they are: merged into
   * an OpenAI-compatible request's body (`{ "seed": 7 }`), Bedrock's `additionalModelRequestFields`
   * (`{ "top_k": 40 }`). A JSON object of at most MAX_PROVIDER_OPTIONS_BYTES, nested at most
   * MAX_JSON_DEPTH deep, without a `__proto__` key.
   */
  providerOptions: jsonObjectSchema()
    .refine(
      (value) => {
        const bytes = givenJsonBytes(value);
        return typeof bytes === "number" && bytes <= MAX_PROVIDER_OPTIONS_BYTES;
      },
      {
        message: `must be at most ${MAX_PROVIDER_OPTIONS_BYTES} bytes as JSON`,
      },
    )
    .optional(),
});

/** Only the settings runlog knows, made once (KnownLimitsSchema says why). */
export const KnownModelSettingsSchema = ModelSettingsSchema.strict();

export type ModelSettings = z.infer<typeof ModelSettingsSchema>;

const EXPECTED: Record<ModelSettingName, string> = {
  temperature: "a number from 0 to 2",
  maxOutputTokens: `a whole number from 1 to ${MAX_OUTPUT_TOKENS_LIMIT}`,
  topP: "a number above 0, at most 1",
  stopSequences: `1 to ${MAX_STOP_SEQUENCES} non-empty strings of at most ${MAX_STOP_SEQUENCE_LENGTH} characters`,
  providerOptions: `a JSON object of at most ${MAX_PROVIDER_OPTIONS_BYTES} bytes, nested at most ${MAX_JSON_DEPTH} levels deep`,
};

/** Check model settings given by a caller (`field` names where), naming the setting that is wrong. */
export function checkModelSettings(value: unknown, field = "modelSettings"): ModelSettings {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidInputError(
      `${field} must be an object: { ${MODEL_SETTING_NAMES.map((name) => `${name}?`).join(", ")} }`,
      { field },
    );
  }
  const parsed = KnownModelSettingsSchema.safeParse(value, WITHOUT_JIT);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  // Inside providerOptions, the shape check names the key to blame and says what is wrong with it.
  if (issue?.code === "custom" && issue.path.length > 1) {
    const at = `${field}.${issue.path.join(".")}`;
    throw new InvalidInputError(`${at}: ${issue.message}`, { field: at });
  }
  const key = issue?.path[0] ?? (issue?.code === "unrecognized_keys" ? issue.keys[0] : undefined);
  const name = key === undefined ? field : `${field}.${String(key)}`;
  const expected = MODEL_SETTING_NAMES.includes(key as ModelSettingName)
    ? EXPECTED[key as ModelSettingName]
    : `not a model setting (they are ${MODEL_SETTING_NAMES.join(", ")})`;
  throw new InvalidInputError(`${name} must be ${expected}`, { field: name });
}

/**
 * The settings a run goes on with: `base` (its agent's, or those recorded), with each setting
 * `asked` names replaced. The one rule of what an agent allows: a run's maxOutputTokens is never
 * above its agent's (when the agent sets one); every other setting may be set freely within its
 * limits. An InvalidInputError names the setting.
 */
export function settingsForRun(
  agent: ModelSettings | undefined,
  base: ModelSettings | undefined,
  asked: ModelSettings | undefined,
  field = "modelSettings",
): ModelSettings {
  const cap = agent?.maxOutputTokens;
  const wanted = asked?.maxOutputTokens;
  if (cap !== undefined && wanted !== undefined && wanted > cap) {
    throw new InvalidInputError(`${field}.maxOutputTokens is ${wanted}, above the ${cap} the agent allows`, {
      field: `${field}.maxOutputTokens`,
    });
  }
  return { ...base, ...asked };
}

/**
 * Refuse settings the model cannot honour, before anything is written: the error names the first
 * such setting and the model. `supported` is what the model declares (Model.supportedSettings): a
 * model that declares nothing honours no setting.
 */
export function assertSupported(
  settings: ModelSettings | undefined,
  spec: string,
  supported: readonly string[] | undefined,
  field = "modelSettings",
): void {
  for (const name of settingNames(settings)) {
    if (supported?.includes(name)) continue;
    const honours =
      supported === undefined || supported.length === 0
        ? "it declares no supportedSettings"
        : `it honours ${supported.join(", ")}`;
    throw new InvalidInputError(`${field}.${name}: model ${spec} cannot honour ${name} (${honours})`, {
      field: `${field}.${name}`,
    });
  }
}
