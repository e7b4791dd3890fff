import { ModelNotAllowedError } from "../core/errors.ts";
import { matchesAny } from "../core/patterns.ts";
import type { ModelResolver } from "../ports/model.ts";

/**
 * A resolver naming only the models `allow` lets through (patterns, `*` any run of characters):
 * any other spec is a ModelNotAllowedError (a 400 over HTTP) before anything is built or written.
 * Set on the functions that start and resume runs (config.modelsAllow), not on the steps, so a
 * run started before the list changed is not failed mid-way.
 */
export function allowedModels(models: ModelResolver, allow: readonly string[] | undefined): ModelResolver {
  if (allow === undefined) return models;
  return (spec) => {
    if (!matchesAny(spec, allow)) throw new ModelNotAllowedError(spec, allow, "by this deployment");
    return models(spec);
  };
}

/** The models an event may name: never a file on the function's filesystem (`scripted:FILE`); a `bedrock:` model only if CallModel was granted it (the `bedrock` prop). */
export const EVENT_MODELS: readonly string[] = ["scripted:demo", "openai:*", "bedrock:*"];

/** ModelNotAllowedError for a spec an event may not name (see EVENT_MODELS). */
export function checkEventModel(spec: string | undefined): void {
  if (spec !== undefined && !matchesAny(spec, EVENT_MODELS)) {
    throw new ModelNotAllowedError(spec, EVENT_MODELS, "in an event");
  }
}
