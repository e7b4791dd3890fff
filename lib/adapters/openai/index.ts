export { isContextLengthError, toModelError } from "./errors.ts";
export { createOpenAIModel, type OpenAIModelOptions } from "./model.ts";
export { OPENAI_SPEC_PREFIX, parseOpenAISpec } from "./spec.ts";
export { stopFor } from "./stop.ts";
