export { isContextFullError, toBedrockError } from "./errors.ts";
export { type BedrockModelOptions, createBedrockModel } from "./model.ts";
export { BEDROCK_SPEC_PREFIX, parseBedrockSpec } from "./spec.ts";
export { stopFor } from "./stop.ts";
