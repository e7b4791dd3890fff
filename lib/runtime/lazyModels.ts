import type { BedrockModelOptions } from "../adapters/bedrock/model.ts";
import { BEDROCK_SETTINGS } from "../adapters/bedrock/settings.ts";
import { BEDROCK_SPEC_PREFIX } from "../adapters/bedrock/spec.ts";
import type { OpenAIModelOptions } from "../adapters/openai/model.ts";
import { OPENAI_SETTINGS } from "../adapters/openai/settings.ts";
import { OPENAI_SPEC_PREFIX } from "../adapters/openai/spec.ts";
import { ModelRejectedError } from "../core/errors.ts";
import type { ModelSettingName } from "../core/modelSettingNames.ts";
import type { Model } from "../ports/model.ts";

/**
 * A model whose adapter (and its SDK) loads on the first call, so commands that never call a
 * model (`ls`, `show`, a scripted run) do not pay for it.
 */
export function lazyModel(
  spec: string,
  load: () => Promise<Model>,
  supportedSettings: readonly ModelSettingName[] = [],
): Model {
  let loaded: Promise<Model> | undefined;
  return {
    spec,
    supportedSettings,
    call: async (request) => {
      loaded ??= load().catch((error: unknown) => {
        loaded = undefined;
        throw error;
      });
      return (await loaded).call(request);
    },
  };
}

/**
 * An `openai:` model loaded on its first call. A missing key still fails here, when the spec is
 * named, before a run is written.
 */
export function lazyOpenAIModel(options: OpenAIModelOptions): Model {
  const spec = `${OPENAI_SPEC_PREFIX}${options.model}`;
  if (!options.client && !options.apiKey) {
    throw new ModelRejectedError(
      `${spec}: cannot create the client: set OPENAI_API_KEY (servers that need no key accept any value)`,
    );
  }
  return lazyModel(
    spec,
    () => import("../adapters/openai/model.ts").then(({ createOpenAIModel }) => createOpenAIModel(options)),
    OPENAI_SETTINGS,
  );
}

/**
 * A `bedrock:` model loaded on its first call, with the AWS SDK's Bedrock client: a local run
 * that names no Bedrock model never loads it. Credentials and region are the SDK's to find (its
 * default chain), on the first call.
 */
export function lazyBedrockModel(options: BedrockModelOptions): Model {
  return lazyModel(
    `${BEDROCK_SPEC_PREFIX}${options.modelId}`,
    () =>
      import("../adapters/bedrock/model.ts").then(({ createBedrockModel }) => createBedrockModel(options)),
    BEDROCK_SETTINGS,
  );
}
