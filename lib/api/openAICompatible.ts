import { InvalidInputError } from "../core/errors.ts";
import type { ModelFactory } from "../ports/model.ts";
import { lazyOpenAIModel } from "../runtime/lazyModels.ts";

/** An OpenAI-compatible endpoint of your own, under a prefix of your own (`ollama:llama3.1:8b`). */
export interface OpenAICompatibleOptions {
  /** The endpoint's Chat Completions base URL (`http://localhost:11434/v1`). */
  baseURL: string;
  /** The key sent as a bearer token; servers that need none take any value. */
  apiKey: string;
  /** The body field that carries a run's maxOutputTokens, for servers that do not take `max_completion_tokens` yet. @default "max_completion_tokens" */
  maxTokensField?: "max_completion_tokens" | "max_tokens";
  /** Time allowed per attempt for the response to start, and between two chunks of it, in ms. @default 240000 */
  timeoutMs?: number;
  /** Retries the OpenAI SDK makes itself (429, 5xx, connection errors) before runlog sees a failure. @default 2 */
  maxRetries?: number;
  /** The OpenAI organization sent with each request. @default none */
  organization?: string;
  /** The OpenAI project sent with each request. @default none */
  project?: string;
}

/** Every option openAICompatible takes. */
const OPTIONS = ["baseURL", "apiKey", "maxTokensField", "timeoutMs", "maxRetries", "organization", "project"];

/** The body fields an endpoint may take a run's maxOutputTokens in. */
const MAX_TOKENS_FIELDS = ["max_completion_tokens", "max_tokens"] as const;

/**
 * A model provider for one OpenAI-compatible endpoint, to give under a prefix of your own in
 * `models` (`{ ollama: openAICompatible({ baseURL, apiKey: "ollama" }) }`): every run naming
 * `ollama:<model>` streams Chat Completions from it, with the endings, errors and settings of
 * runlog's `openai:` models, whatever `OPENAI_BASE_URL` says. The `openai` SDK loads on the first
 * call. Bad options are an InvalidInputError naming the option, here, before any run.
 */
export function openAICompatible(options: OpenAICompatibleOptions): ModelFactory {
  const checked = check(options);
  return (name) => lazyOpenAIModel({ ...checked, model: name });
}

function check(options: OpenAICompatibleOptions): OpenAICompatibleOptions {
  const bad = (field: string, must: string, got: unknown) =>
    new InvalidInputError(
      `openAICompatible: ${field} must be ${must}, got ${JSON.stringify(got) ?? String(got)}`,
      {
        field,
      },
    );
  if (typeof options !== "object" || options === null)
    throw bad("options", "{ baseURL, apiKey, … }", options);
  // A misspelled option (`maxTokenField`) would be ignored without a word: refused, naming it.
  const unknown = Object.keys(options).filter((key) => !OPTIONS.includes(key));
  if (unknown.length > 0) throw bad(unknown[0]!, `one of the options ${OPTIONS.join(", ")}`, unknown[0]);
  const { baseURL, apiKey, maxTokensField, timeoutMs, maxRetries, organization, project } = options;
  if (typeof baseURL !== "string" || !URL.canParse(baseURL) || !/^https?:$/.test(new URL(baseURL).protocol))
    throw bad("baseURL", "an http:// or https:// URL", baseURL);
  if (typeof apiKey !== "string" || !/^\S+$/.test(apiKey))
    throw bad("apiKey", "a non-empty string without spaces (any value for a server that needs no key)", "…");
  if (maxTokensField !== undefined && !(MAX_TOKENS_FIELDS as readonly string[]).includes(maxTokensField))
    throw bad("maxTokensField", `one of ${MAX_TOKENS_FIELDS.join(", ")}`, maxTokensField);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs >= 1))
    throw bad("timeoutMs", "a whole number of milliseconds, 1 or more", timeoutMs);
  if (maxRetries !== undefined && !(Number.isInteger(maxRetries) && maxRetries >= 0 && maxRetries <= 10))
    throw bad("maxRetries", "a whole number from 0 to 10", maxRetries);
  for (const [field, value] of [
    ["organization", organization],
    ["project", project],
  ] as const) {
    if (value !== undefined && (typeof value !== "string" || value.trim() === ""))
      throw bad(field, "a non-empty string", value);
  }
  return options;
}
