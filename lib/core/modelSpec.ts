import { InvalidInputError } from "./errors.ts";

/** A model provider's prefix: a letter, then letters, digits, `_` or `-` (never a colon). */
export const PROVIDER_PREFIX = /^[A-Za-z][A-Za-z0-9_-]*$/;

/**
 * Whether `spec` has the form every provider's spec has, `<prefix>:<name>` (a prefix as above, a
 * colon, a name that does not start blank); which prefixes are served is the resolver's to say.
 */
function hasModelSpecForm(spec: string): boolean {
  const colon = spec.indexOf(":");
  return colon > 0 && PROVIDER_PREFIX.test(spec.slice(0, colon)) && /^\S/.test(spec.slice(colon + 1));
}

/**
 * The model spec has the form every provider's spec has, `<prefix>:<name>`: which prefixes are
 * served is known only where the models are (openLocal's `models`, the agents module), and is
 * checked at start; a spec no provider could serve (`gpt-4o`, `openai:`) fails where it is
 * written (defineAgent). Nothing is built and no key is needed.
 */
export function checkModelSpecForm(where: string, model: string): void {
  if (hasModelSpecForm(model)) return;
  const hint = model.includes(":") ? "" : ` (did you mean "openai:${model.trim()}"?)`;
  throw new InvalidInputError(
    `${where}: model ${JSON.stringify(model)} is not a model spec: write <provider>:<model>, e.g. "openai:gpt-4.1-mini", "bedrock:<model id>", "scripted:FILE" or a prefix of your own${hint}`,
    { field: "model" },
  );
}
