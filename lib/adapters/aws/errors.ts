import { isThrottlingError, isTransientError } from "@smithy/core/retry";
import {
  ConflictError,
  errorMessage,
  NotFoundError,
  PermanentError,
  RetryableError,
  RunlogError,
} from "../../core/errors.ts";

/**
 * The one classifier of what AWS SDK clients throw (DynamoDB, Step Functions,
 * Secrets Manager, Bedrock), so a dropped connection is retryable everywhere, not
 * in two of three places. Throttling and transient failures are what the SDK's
 * own retry strategy says they are (@smithy/core/retry's predicates, which every
 * client already loads); runlog adds only what they lack (server-error names, an
 * AggregateError of connect attempts, an aborted connect, HTTP/2 resets, "socket
 * hang up"), and each service its own names on top (see `AwsErrorRules`).
 */

/** What kind of failure an SDK error is. */
export type AwsErrorKind =
  /** The service asks us to slow down (429, a throttling name, `$retryable.throttling`). */
  | "throttling"
  /** The service failed on its side (5xx, `$fault: "server"`, `$retryable`). */
  | "server"
  /**
   * The request may never have arrived (refused, reset, timed out, no route, DNS), or failed on
   * the way in another way the SDK tries again (a clock skew it corrected, an expired signature).
   */
  | "network"
  /** A condition of the request did not hold (DynamoDB's conditional writes). */
  | "conditional"
  /** The resource named does not exist. */
  | "not_found"
  /** Anything else the service refused: bad input, access denied, an unknown name. */
  | "rejected";

const SERVER = new Set([
  "InternalFailure",
  "InternalServerError",
  "InternalServiceError",
  "InternalServerException",
  "ServiceUnavailable",
  "ServiceUnavailableException",
]);
/**
 * Codes Node puts on a failed socket that the SDK's own list (isTransientError: reset, refused,
 * timed out, no route, DNS) lacks: an aborted connect, and an HTTP/2 stream or session (the
 * Bedrock client's transport) the peer reset or went away from.
 */
const NETWORK_CODES = new Set([
  "ECONNABORTED",
  "ERR_HTTP2_STREAM_ERROR",
  "ERR_HTTP2_SESSION_ERROR",
  "ERR_HTTP2_GOAWAY_SESSION",
  "ERR_HTTP2_STREAM_CANCEL",
]);
const NOT_FOUND = new Set(["ResourceNotFoundException", "NotFoundException"]);
/** How deep to follow `cause` and AggregateError's `errors` (the SDK nests a few levels at most). */
const MAX_DEPTH = 5;

type Shape = {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
  $fault?: unknown;
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: unknown; attempts?: unknown };
};

/** What the SDK's predicates take: any error the SDK threw, read field by field. */
type SdkError = Parameters<typeof isTransientError>[0];

const shape = (error: unknown): Shape => (typeof error === "object" && error !== null ? error : {});

/** The SDK's name for an error (`ConditionalCheckFailedException`, `ExecutionAlreadyExists` …), if it has one. */
export function awsErrorName(error: unknown): string | undefined {
  const { name } = shape(error);
  return typeof name === "string" ? name : undefined;
}

function httpStatus(error: unknown): number | undefined {
  const status = shape(error).$metadata?.httpStatusCode;
  return typeof status === "number" ? status : undefined;
}

/**
 * Throttled, as the SDK's retry strategy judges it: a throttling name, a 429, or
 * `$retryable: { throttling: true }`.
 */
function isThrottling(error: unknown): boolean {
  return typeof error === "object" && error !== null && isThrottlingError(error as SdkError);
}

/**
 * A failure on the service's side: a 5xx (any: the SDK's retry strategy tries each again), `$fault:
 * "server"`, a server-error name, or any `$retryable` trait.
 */
function isServerFault(error: unknown): boolean {
  const { $fault, $retryable } = shape(error);
  const name = awsErrorName(error);
  const status = httpStatus(error);
  return (
    $fault === "server" ||
    $retryable !== undefined ||
    (name !== undefined && SERVER.has(name)) ||
    (status !== undefined && status >= 500 && status <= 599)
  );
}

/**
 * A dropped, refused or timed-out connection (the request may not have reached the service), or
 * another failure the SDK's retry strategy counts as transient (a clock skew it corrected, an
 * expired signature, a refused HTTP/2 stream). Node reports a failed connect to several addresses
 * as an AggregateError of the attempts, and the SDK may wrap the socket's error as a `cause`:
 * both are looked into.
 */
function isNetworkError(error: unknown, depth = 0): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message, errors, cause } = shape(error);
  // A deliberate abort (ours) is not the network failing.
  if (awsErrorName(error) === "AbortError") return false;
  if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
  if (typeof message === "string" && /socket hang up/i.test(message)) return true;
  if (isTransientError(error as SdkError)) return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(errors) && errors.some((inner) => isNetworkError(inner, depth + 1))) return true;
  return cause !== undefined && isNetworkError(cause, depth + 1);
}

/**
 * The SDK found no credentials (its default chain: environment, profile, SSO, container,
 * instance metadata): the caller must give some. Looks through `cause`, where a runlog error
 * keeps the SDK's.
 */
export function isMissingCredentials(error: unknown, depth = 0): boolean {
  if (awsErrorName(error) === "CredentialsProviderError") return true;
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return depth < 5 && cause !== undefined && isMissingCredentials(cause, depth + 1);
}

/** DynamoDB's "your condition did not hold", which callers usually turn into a decision, not a failure. */
export function isConditionalFailure(error: unknown): boolean {
  return awsErrorName(error) === "ConditionalCheckFailedException";
}

/** Whether the SDK sent the request more than once (an earlier attempt may have been applied). */
export function wasRetried(error: unknown): boolean {
  const attempts = shape(error).$metadata?.attempts;
  return typeof attempts === "number" && attempts > 1;
}

/** The kind of an SDK error; `notFound` adds a service's own names for a missing resource. */
export function awsErrorKind(error: unknown, notFound: ReadonlySet<string> = NOT_FOUND): AwsErrorKind {
  if (isConditionalFailure(error)) return "conditional";
  if (isThrottling(error)) return "throttling";
  if (isServerFault(error)) return "server";
  if (isNetworkError(error)) return "network";
  const name = awsErrorName(error);
  if (name !== undefined && (NOT_FOUND.has(name) || notFound.has(name))) return "not_found";
  return "rejected";
}

/** What one service adds to the shared classification. */
export interface AwsErrorRules {
  /** The service as a message names it: "DynamoDB", "Step Functions", "Secrets Manager". */
  service: string;
  /** The service's own names for a missing resource, besides ResourceNotFoundException. */
  notFound?: ReadonlySet<string>;
  /** The service's own names that mean something else (ExecutionAlreadyExists …): checked first. */
  own?: (name: string, message: string, options: { cause: unknown }) => RunlogError | undefined;
  /**
   * How a missing resource is reported: what is missing, and as which error. A missing table or
   * secret is the deployment's mistake (PermanentError), not a run the caller asked for that is
   * not there (NotFoundError, which the HTTP API answers with 404).
   * @default { words: "it does not exist", as: NotFoundError }
   */
  missing?: { words: string; as: new (message: string, options: { cause: unknown }) => RunlogError };
}

/**
 * Translate anything an SDK client throws into runlog's error family, because the
 * state machine's Retry/Catch and every caller decide by category. `what` names the
 * operation and run ("append seq 3 to run r1"). A runlog error passes through unchanged.
 */
export function toRunlogError(error: unknown, what: string, rules: AwsErrorRules): RunlogError {
  if (error instanceof RunlogError) return error;
  const name = awsErrorName(error);
  const detail = `${name ? `${name}: ` : ""}${errorMessage(error)}`;
  const options = { cause: error };
  const own = name === undefined ? undefined : rules.own?.(name, `${what}: ${detail}`, options);
  if (own) return own;
  const { service } = rules;
  const kind = awsErrorKind(error, rules.notFound);
  switch (kind) {
    case "conditional":
      return new ConflictError(`${what}: the item changed underneath (${detail})`, options);
    case "throttling":
      return new RetryableError(`${what}: ${service} is throttling requests (${detail})`, options);
    case "server":
      return new RetryableError(`${what}: ${service} failed transiently (${detail})`, options);
    case "network":
      return new RetryableError(`${what}: the request to ${service} failed on the way (${detail})`, options);
    case "not_found": {
      const { words, as } = rules.missing ?? { words: "it does not exist", as: NotFoundError };
      return new as(`${what}: ${words} (${detail})`, options);
    }
    case "rejected":
      return new PermanentError(`${what}: ${service} rejected the request (${detail})`, options);
    default: {
      const never: never = kind;
      throw new Error(`unhandled AWS error kind ${String(never)}`);
    }
  }
}
