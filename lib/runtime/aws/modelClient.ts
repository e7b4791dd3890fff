import type { OpenAIModelOptions } from "../../adapters/openai/model.ts";
import { ModelRejectedError } from "../../core/errors.ts";
import { MODEL_CLIENT } from "../../workflow/timeouts.ts";

/**
 * The options of the CallModel function's OpenAI client, from lib/workflow/timeouts.ts: every
 * attempt it makes, and the waits between them, end well before the function's timeout (the
 * SDK's defaults, 600 s per attempt and 3 attempts, did not). The step's deadline ends whatever
 * is still streaming before that (lib/steps/callModel.ts). Without a key, calling a model fails
 * clearly; naming and checking one still works.
 */
export function modelClientOptions(
  apiKey: (() => Promise<string>) | undefined,
): Required<Pick<OpenAIModelOptions, "apiKey" | "timeoutMs" | "maxRetries">> {
  return {
    apiKey: apiKey ?? (() => Promise.reject(new ModelRejectedError("this function holds no model key"))),
    timeoutMs: MODEL_CLIENT.perAttemptMs,
    maxRetries: MODEL_CLIENT.attempts - 1,
  };
}
