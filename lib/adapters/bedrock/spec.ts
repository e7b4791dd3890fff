import { InvalidInputError } from "../../core/errors.ts";
import { checkModelName } from "../../core/modelSpec.ts";

/** The prefix of model specs this adapter serves: `bedrock:<model id or inference profile>`. */
export const BEDROCK_SPEC_PREFIX = "bedrock:";

/**
 * Read a spec such as `bedrock:anthropic.claude-3-5-haiku-20241022-v1:0` into the model id (or
 * inference profile id, or ARN) Bedrock expects. Everything after the first colon is the id, so
 * the colons of a versioned id or an ARN are kept.
 */
export function parseBedrockSpec(spec: string): { modelId: string } {
  if (!spec.startsWith(BEDROCK_SPEC_PREFIX)) {
    throw new InvalidInputError(`model spec ${JSON.stringify(spec)}: expected bedrock:<model id>`, {
      field: "model",
    });
  }
  checkModelName(spec);
  const modelId = spec.slice(BEDROCK_SPEC_PREFIX.length);
  if (/\s/.test(modelId)) {
    throw new InvalidInputError(
      `model spec ${JSON.stringify(spec)}: the model id after bedrock: must be one word (e.g. bedrock:amazon.nova-lite-v1:0 or an inference profile such as bedrock:us.amazon.nova-lite-v1:0)`,
      { field: "model" },
    );
  }
  return { modelId };
}
