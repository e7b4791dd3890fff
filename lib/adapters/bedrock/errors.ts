import { errorMessage, ModelRejectedError, ModelUnavailableError } from "../../core/errors.ts";
import { redact } from "../../core/redact.ts";
import { awsErrorKind, awsErrorName } from "../aws/errors.ts";
import { saysContextFull } from "../contextWindow.ts";

/**
 * Bedrock's own names for a failure that trying again may fix, besides those the shared AWS
 * classification knows (throttling, 5xx, the network): a model that took too long or is still
 * loading, and a stream the model broke off (Bedrock's advice for all three is to retry).
 */
const RETRYABLE = new Set(["ModelTimeoutException", "ModelNotReadyException", "ModelStreamErrorException"]);

/** Whether Bedrock refused the request because the conversation does not fit the model's context window. */
export function isContextFullError(error: unknown): boolean {
  return awsErrorName(error) === "ValidationException" && saysContextFull(errorMessage(error));
}

/**
 * Translate what the Bedrock client threw (after its own retries) into runlog's error family, as
 * the OpenAI model does its SDK's: ModelUnavailableError for throttling, a 5xx, a timeout or a
 * broken connection; ModelRejectedError for everything else (validation, access denied, an
 * unknown model, no credentials or region), which will fail again the same way.
 */
export function toBedrockError(error: unknown, spec: string): ModelUnavailableError | ModelRejectedError {
  const options = { cause: error };
  const name = awsErrorName(error);
  const detail = redact(
    `${name && name !== "Error" ? `${name}: ` : ""}${errorMessage(error)}${requestId(error)}`,
  );
  const kind = awsErrorKind(error);
  if (kind === "throttling")
    return new ModelUnavailableError(`${spec} is unavailable: throttled (${detail})`, options);
  if (kind === "server" || kind === "network" || (name !== undefined && RETRYABLE.has(name))) {
    return new ModelUnavailableError(`${spec} is unavailable: ${detail}`, options);
  }
  return new ModelRejectedError(`${spec} rejected the request: ${detail}`, options);
}

function requestId(error: unknown): string {
  const id = (error as { $metadata?: { requestId?: unknown } } | null)?.$metadata?.requestId;
  return typeof id === "string" && id.length > 0 ? ` [request ${id}]` : "";
}
