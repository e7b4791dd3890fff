import { createHash } from "node:crypto";

/** What ids a provider accepts for a tool call: at most `maxLength` characters, matching `pattern`. */
export interface CallIdRule {
  maxLength: number;
  pattern: RegExp;
}

/** Bedrock's toolUseId: [a-zA-Z0-9_-]+, at most 64 characters. */
export const BEDROCK_CALL_IDS: CallIdRule = { maxLength: 64, pattern: /^[a-zA-Z0-9_-]+$/ };
/** OpenAI's tool call id: at most 40 characters, any characters. */
export const OPENAI_CALL_IDS: CallIdRule = { maxLength: 40, pattern: /^[\s\S]+$/ };

/** The prefix of a mapped id; never the start of an id a provider made, so mapped ids cannot collide with kept ones. */
const MAPPED = "rlc_";

/**
 * The id a provider is sent for a call runlog logged as `id`: the id itself when the provider
 * accepts it, else `rlc_` and 32 hex digits of its SHA-256, which every provider here accepts.
 * Deterministic, so a call and its result (both mapped) stay paired by id in every request, and a
 * run that moves between providers (a resume or fork with another model) keeps its pairs. The log
 * keeps the original ids; callIdFromProvider reads a mapped id back.
 */
export function callIdForProvider(id: string, rule: CallIdRule): string {
  if (id.length <= rule.maxLength && rule.pattern.test(id) && !id.startsWith(MAPPED)) return id;
  return `${MAPPED}${createHash("sha256").update(id).digest("hex").slice(0, 32)}`;
}

/** The logged id a provider's id stands for, among `ids` (the calls of the request that was sent). */
export function callIdFromProvider(providerId: string, ids: readonly string[], rule: CallIdRule): string {
  return ids.find((id) => callIdForProvider(id, rule) === providerId) ?? providerId;
}
