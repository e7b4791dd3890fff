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

/** What ConverseStream answers with: the AWS event-stream framing. */
const EVENT_STREAM = "application/vnd.amazon.eventstream";

/**
 * Translate what the Bedrock client threw (after its own retries) into runlog's error family, as
 * the OpenAI model does its SDK's: ModelUnavailableError for throttling, a 5xx, a timeout, a
 * broken connection or a corrupted event stream; ModelRejectedError for everything else
 * (validation, access denied, an unknown model, no credentials or region, an endpoint that
 * answers with no event stream), which will fail again the same way.
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
  const unread = unreadAnswer(error);
  if (unread !== undefined) {
    const why = redact(`${firstLine(errorMessage(error))}${requestId(error)}`);
    // The client reads the first event before it returns: a frame that fails its checksum is the
    // transport's fault, as a stream cut off before any text is.
    if (unread.contentType?.split(";")[0]?.trim().toLowerCase() === EVENT_STREAM) {
      return new ModelUnavailableError(
        `${spec} is unavailable: the response stream broke before any text: ${why}`,
        options,
      );
    }
    const answered = unread.contentType ? `content-type ${unread.contentType}` : "no content-type";
    return new ModelRejectedError(
      `${spec} cannot be used: the endpoint answered with ${answered}, not an event stream (${EVENT_STREAM}): ConverseStream must stream (${why})`,
      options,
    );
  }
  return new ModelRejectedError(`${spec} rejected the request: ${detail}`, options);
}

/**
 * The answer behind a failure to read a successful (2xx) response, which the SDK marks with the
 * response (`$response`) and no `$fault` (a service's error has one); undefined for any other failure.
 */
function unreadAnswer(error: unknown): { contentType: string | undefined } | undefined {
  if (typeof error !== "object" || error === null || "$fault" in error) return undefined;
  const response = (error as { $response?: { statusCode?: unknown; headers?: unknown } }).$response;
  const status = response?.statusCode;
  if (typeof status !== "number" || status < 200 || status > 299) return undefined;
  const headers = typeof response?.headers === "object" && response.headers !== null ? response.headers : {};
  const found = Object.entries(headers).find(([name]) => name.toLowerCase() === "content-type")?.[1];
  return { contentType: typeof found === "string" ? found : undefined };
}

/** A message without the SDK's hint about its hidden `$response` field, which says nothing to a reader of the log. */
const firstLine = (message: string) => message.split("\n")[0] ?? message;

function requestId(error: unknown): string {
  const id = (error as { $metadata?: { requestId?: unknown } } | null)?.$metadata?.requestId;
  return typeof id === "string" && id.length > 0 ? ` [request ${id}]` : "";
}
