import type { BedrockModelOptions } from "../adapters/bedrock/model.ts";
import { parseBedrockSpec } from "../adapters/bedrock/spec.ts";
import type { OpenAIModelOptions } from "../adapters/openai/model.ts";
import { parseOpenAISpec } from "../adapters/openai/spec.ts";
import { createScriptedModel } from "../adapters/scripted/index.ts";
import { InvalidInputError, UnknownModelError } from "../core/errors.ts";
import { checkModelName, PROVIDER_PREFIX } from "../core/modelSpec.ts";
import type { Model, ModelProviders, ModelResolver } from "../ports/model.ts";
import { addedModel } from "./addedModels.ts";
import { OPENAI_DEFAULT_BASE_URL } from "./config.ts";
import { lazyBedrockModel, lazyOpenAIModel } from "./lazyModels.ts";

/** The prefixes runlog serves itself, without their colon. */
export const BUILT_IN_PREFIXES = ["scripted", "openai", "bedrock"] as const;

export interface ModelResolverOptions {
  /** Options (a key, a shared client) for every `openai:` model. */
  openai?: Omit<OpenAIModelOptions, "model">;
  /** Options (a region, a shared client) for every `bedrock:` model. */
  bedrock?: Omit<BedrockModelOptions, "modelId">;
  /** The caller's own providers by prefix (ModelProviders): `echo:one` calls `providers.echo("one")`. */
  providers?: ModelProviders;
}

/** What of the configuration says where `openai:` models are called. */
export interface OpenAIEndpointConfig {
  openaiBaseUrl?: string | undefined;
  openaiOrgId?: string | undefined;
  openaiProjectId?: string | undefined;
}

/**
 * The endpoint, organization and project of `openai:` models as the configuration says, each one
 * given (null for none): the SDK would otherwise read OPENAI_BASE_URL and the rest from this
 * process's environment, not from the one runlog was given (openLocal's `env`).
 */
export function openaiEndpoint(
  config: OpenAIEndpointConfig,
): Required<Pick<OpenAIModelOptions, "baseURL" | "organization" | "project">> {
  return {
    baseURL: config.openaiBaseUrl ?? OPENAI_DEFAULT_BASE_URL,
    organization: config.openaiOrgId ?? null,
    project: config.openaiProjectId ?? null,
  };
}

/**
 * Which prefix a spec names (an `openai:` or `bedrock:` spec's model part checked too), without building its
 * model; UnknownModelError listing every known prefix for any other spec.
 */
export function checkModelSpec(spec: string, providers: ModelProviders = {}): string {
  const colon = spec.indexOf(":");
  const prefix = colon > 0 ? spec.slice(0, colon) : undefined;
  if (prefix === "openai") parseOpenAISpec(spec);
  if (prefix === "bedrock") parseBedrockSpec(spec);
  if (prefix !== undefined && (isBuiltIn(prefix) || Object.hasOwn(providers, prefix))) {
    checkModelName(spec);
    return prefix;
  }
  throw new UnknownModelError(spec, [...BUILT_IN_PREFIXES, ...Object.keys(providers)]);
}

/**
 * Resolves `scripted:FILE`, `scripted:demo`, `openai:MODEL`, `bedrock:MODEL_ID` and the caller's own prefixes,
 * building each model once (a script is read when first named, so a bad one fails early).
 */
export function modelResolver(options: ModelResolverOptions = {}): ModelResolver {
  const providers = checkProviders(options.providers ?? {});
  const models = new Map<string, Model>();
  return (spec) => {
    const known = models.get(spec);
    if (known) return known;
    const prefix = checkModelSpec(spec, providers);
    const model = build(spec, prefix, options, providers);
    models.set(spec, model);
    return model;
  };
}

function build(
  spec: string,
  prefix: string,
  options: ModelResolverOptions,
  providers: ModelProviders,
): Model {
  switch (prefix) {
    case "scripted":
      return createScriptedModel(spec);
    case "openai":
      return lazyOpenAIModel({ ...options.openai, ...parseOpenAISpec(spec) });
    case "bedrock":
      return lazyBedrockModel({ ...options.bedrock, ...parseBedrockSpec(spec) });
    default:
      return addedModel(spec, prefix, providers[prefix]!);
  }
}

function isBuiltIn(prefix: string): boolean {
  return (BUILT_IN_PREFIXES as readonly string[]).includes(prefix);
}

/**
 * The caller's providers, checked once when runlog opens: InvalidInputError (field `models`) for a
 * prefix that is not one, takes a built-in's place, or is not a function.
 */
export function checkProviders(providers: unknown): ModelProviders {
  if (typeof providers !== "object" || providers === null || Array.isArray(providers)) {
    throw new InvalidInputError(
      "models must be an object of model providers by prefix (models: { echo: (name) => model })",
      { field: "models" },
    );
  }
  for (const [prefix, factory] of Object.entries(providers)) {
    if (!PROVIDER_PREFIX.test(prefix)) {
      throw new InvalidInputError(
        `models.${prefix}: a prefix is a letter then letters, digits, _ or - (no colon: "echo" serves echo:NAME)`,
        { field: "models" },
      );
    }
    if (isBuiltIn(prefix)) {
      throw new InvalidInputError(
        `models.${prefix}: ${prefix}: is built in; give your provider another prefix (built in are ${BUILT_IN_PREFIXES.join(", ")})`,
        { field: "models" },
      );
    }
    if (typeof factory !== "function") {
      throw new InvalidInputError(
        `models.${prefix} is not a function: a provider is (name) => Model, name being what follows "${prefix}:"`,
        { field: "models" },
      );
    }
  }
  return providers as ModelProviders;
}
