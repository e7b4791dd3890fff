import { InvalidInputError } from "../core/errors.ts";
import type { Model, ModelResolver } from "../ports/model.ts";
import {
  createOpenAIModel,
  OPENAI_SPEC_PREFIX,
  type OpenAIModelOptions,
  parseOpenAISpec,
} from "./openai/index.ts";
import { createScriptedModel } from "./scripted/index.ts";

/**
 * Resolves `scripted:FILE`, `scripted:demo` and `openai:MODEL` specs, building
 * each model once (a script is read when first named, so a bad one fails early).
 * `openai` options (a key, a shared client) apply to every `openai:` model.
 */
export function modelResolver(options: { openai?: Omit<OpenAIModelOptions, "model"> } = {}): ModelResolver {
  const models = new Map<string, Model>();
  return (spec) => {
    const known = models.get(spec);
    if (known) return known;
    let model: Model;
    if (spec.startsWith("scripted:")) model = createScriptedModel(spec);
    else if (spec.startsWith(OPENAI_SPEC_PREFIX))
      model = createOpenAIModel({ ...options.openai, ...parseOpenAISpec(spec) });
    else {
      throw new InvalidInputError(
        `unknown model ${JSON.stringify(spec)}: use scripted:FILE, scripted:demo or openai:MODEL (e.g. openai:gpt-4.1-mini)`,
      );
    }
    models.set(spec, model);
    return model;
  };
}
