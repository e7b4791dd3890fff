import { InvalidInputError } from "./errors.ts";

/** A model provider's prefix: a letter, then letters, digits, `_` or `-` (never a colon). */
export const PROVIDER_PREFIX = /^[A-Za-z][A-Za-z0-9_-]*$/;

/**
 * Whether `spec` has the form every provider's spec has, `<prefix>:<name>` (a prefix as above, a
 * colon, a name that neither starts nor ends blank); which prefixes are served is the resolver's to say.
 */
function hasModelSpecForm(spec: string): boolean {
  const colon = spec.indexOf(":");
  return colon > 0 && PROVIDER_PREFIX.test(spec.slice(0, colon)) && isModelName(spec.slice(colon + 1));
}

/** A model's name (what follows the prefix's colon): not empty, and neither starting nor ending blank. */
const isModelName = (name: string): boolean => /^\S(?:.*\S)?$/s.test(name);

/**
 * The one rule for the name in a spec, wherever a spec enters (an agent, a start, a resume, the
 * CLI's --model, the HTTP API; each resolves it through lib/runtime/models.ts): everything after
 * the first colon is the name, sent as it is, so one with a blank at either end is refused, never
 * trimmed (the log would record one model and the request name another). InvalidInputError
 * naming the `model` field.
 */
export function checkModelName(spec: string): void {
  const colon = spec.indexOf(":");
  if (colon < 0 || isModelName(spec.slice(colon + 1))) return;
  const prefix = spec.slice(0, colon + 1);
  const name = spec.slice(colon + 1).trim();
  const why =
    name === ""
      ? "is empty: write the model's name right after the colon"
      : `starts or ends with a blank, which would be sent as part of it: write ${JSON.stringify(prefix + name)}`;
  throw new InvalidInputError(`model spec ${JSON.stringify(spec)}: the model name after ${prefix} ${why}`, {
    field: "model",
  });
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
