import type { OpenAIModelOptions } from "../adapters/openai/model.ts";
import { OPENAI_SPEC_PREFIX, parseOpenAISpec } from "../adapters/openai/spec.ts";
import { createScriptedModel } from "../adapters/scripted/index.ts";
import { InvalidInputError, ModelRejectedError } from "../core/errors.ts";
import type { Model, ModelResolver } from "../ports/model.ts";

/**
 * Which kind of model a spec names (an `openai:` spec's model part checked too), without building
 * it; InvalidInputError naming the kinds for any other spec.
 */
export function checkModelSpec(spec: string): "scripted" | "openai" {
  if (spec.startsWith("scripted:")) return "scripted";
  if (spec.startsWith(OPENAI_SPEC_PREFIX)) {
    parseOpenAISpec(spec);
    return "openai";
  }
  throw new InvalidInputError(
    `unknown model ${JSON.stringify(spec)}: use scripted:FILE, scripted:demo or openai:MODEL (e.g. openai:gpt-4.1-mini)`,
  );
}

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
    const model =
      checkModelSpec(spec) === "scripted"
        ? createScriptedModel(spec)
        : lazyOpenAIModel({ ...options.openai, ...parseOpenAISpec(spec) });
    models.set(spec, model);
    return model;
  };
}

/**
 * An `openai:` model whose SDK loads on its first call, so commands that never call a
 * model (`ls`, `show`, a scripted run) do not pay for it. A missing key still fails
 * here, when the spec is named, before a run is written.
 */
function lazyOpenAIModel(options: OpenAIModelOptions): Model {
  const spec = `${OPENAI_SPEC_PREFIX}${options.model}`;
  if (!options.client && !options.apiKey) {
    throw new ModelRejectedError(
      `${spec}: cannot create the client: set OPENAI_API_KEY (servers that need no key accept any value)`,
    );
  }
  let loaded: Promise<Model> | undefined;
  return {
    spec,
    call: async (request) => {
      loaded ??= import("../adapters/openai/model.ts").then(({ createOpenAIModel }) =>
        createOpenAIModel(options),
      );
      return (await loaded).call(request);
    },
  };
}
