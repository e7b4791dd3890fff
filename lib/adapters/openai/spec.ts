import { InvalidInputError } from "../../core/errors.ts";
import { checkModelName } from "../../core/modelSpec.ts";

/** The prefix of model specs this adapter serves: `openai:<model>`. */
export const OPENAI_SPEC_PREFIX = "openai:";

/**
 * Read a spec such as `openai:gpt-4.1-mini` into the model name the provider expects.
 * Everything after the first colon is the name, so `openai:llama3.1:8b` names `llama3.1:8b`.
 */
export function parseOpenAISpec(spec: string): { model: string } {
  if (!spec.startsWith(OPENAI_SPEC_PREFIX)) {
    throw new InvalidInputError(`model spec ${JSON.stringify(spec)}: expected openai:<model>`, {
      field: "model",
    });
  }
  // Sent as written: a name with a blank at either end is refused, never trimmed.
  checkModelName(spec);
  return { model: spec.slice(OPENAI_SPEC_PREFIX.length) };
}
