import { GetParameterError } from "@aws-lambda-powertools/parameters/errors";
import type { SecretsProvider } from "@aws-lambda-powertools/parameters/secrets";
import { toRunlogError } from "../../adapters/aws/errors.ts";
import { PermanentError } from "../../core/errors.ts";

/** JSON keys a secret may keep the key under, for secrets made by tools that store key/value pairs. */
const KEY_FIELDS = ["apiKey", "OPENAI_API_KEY", "api_key"];

/** How long a key read is used before Secrets Manager is asked again, so a rotated key is picked up. */
export const MODEL_KEY_MAX_AGE_SECONDS = 300;

/**
 * The model API key in a Secrets Manager secret, read through Powertools Parameters' cache:
 * its plain text, or one of KEY_FIELDS of a JSON object. `refresh` before each invocation
 * (Secrets Manager is asked again once `maxAgeSeconds` have passed); the model client takes
 * `current`, the key last read. A read that fails is a RunlogError by the shared AWS
 * classification: throttling, 5xx and network failures retryable, a missing or unreadable
 * secret permanent (a deployment mistake, not a blip).
 */
export class ModelKey {
  #key: string | undefined;

  constructor(
    private readonly provider: SecretsProvider,
    readonly secretId: string,
    private readonly maxAgeSeconds = MODEL_KEY_MAX_AGE_SECONDS,
  ) {}

  /** Read the key (from the cache while it is fresh); fails when the secret holds none. */
  async refresh(): Promise<string> {
    const { secretId } = this;
    let value: string | Uint8Array | undefined;
    try {
      value = await this.provider.get(secretId, { maxAge: this.maxAgeSeconds });
    } catch (error) {
      // Parameters wraps what the SDK threw; the classifier judges the SDK's own error.
      const cause = error instanceof GetParameterError && error.cause !== undefined ? error.cause : error;
      throw toRunlogError(cause, `read the model key from secret ${secretId}`, {
        service: "Secrets Manager",
        missing: { words: "the secret does not exist", as: PermanentError },
      });
    }
    const key = typeof value === "string" ? keyIn(secretId, value.trim()) : undefined;
    if (!key) {
      throw new PermanentError(
        `secret ${secretId} holds no model key: store the key as plain text or as JSON with one of ${KEY_FIELDS.join(", ")}`,
      );
    }
    this.#key = key;
    return key;
  }

  /** The key last read, for the model client (read now if it never was). */
  readonly current = async (): Promise<string> => this.#key ?? (await this.refresh());
}

function keyIn(secretId: string, text: string): string | undefined {
  if (!text.startsWith("{")) return text || undefined;
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // No provider's key starts with "{": this is JSON gone wrong, and sending it as a key would
    // only come back as a confusing 401 from the provider. JSON.parse's own message quotes the
    // text around the fault, which is the key: neither it nor the error is kept.
    throw new PermanentError(
      `secret ${secretId} starts with "{" but is not valid JSON (its ${text.length} characters are not shown): ` +
        `store the key as plain text or as JSON with one of ${KEY_FIELDS.join(", ")}`,
    );
  }
  const found = KEY_FIELDS.map((field) => fields[field]).find((value) => typeof value === "string" && value);
  return found as string | undefined;
}
