import { GetSecretValueCommand, type SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { toRunlogError } from "../lib/adapters/aws/errors.ts";
import { errorMessage, PermanentError } from "../lib/core/errors.ts";

/** JSON keys a secret may keep the key under, for secrets made by tools that store key/value pairs. */
const KEY_FIELDS = ["apiKey", "OPENAI_API_KEY", "api_key"];

/**
 * The model API key in a Secrets Manager secret: its plain text, or one of
 * KEY_FIELDS of a JSON object. Throttling, 5xx and network failures are retryable
 * (the shared AWS classification); a missing or unreadable secret is permanent (a
 * deployment mistake, not a blip).
 */
export async function readModelKey(client: SecretsManagerClient, secretId: string): Promise<string> {
  let text: string | undefined;
  try {
    text = (await client.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
  } catch (error) {
    throw toRunlogError(error, `read the model key from secret ${secretId}`, {
      service: "Secrets Manager",
      missing: { words: "the secret does not exist", as: PermanentError },
    });
  }
  const key = text === undefined ? undefined : keyIn(secretId, text.trim());
  if (!key) {
    throw new PermanentError(
      `secret ${secretId} holds no model key: store the key as plain text or as JSON with one of ${KEY_FIELDS.join(", ")}`,
    );
  }
  return key;
}

function keyIn(secretId: string, text: string): string | undefined {
  if (!text.startsWith("{")) return text || undefined;
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    // No provider's key starts with "{": this is JSON gone wrong, and sending it as a key would
    // only come back as a confusing 401 from the provider.
    throw new PermanentError(
      `secret ${secretId} starts with "{" but is not valid JSON: ${errorMessage(error)}`,
      {
        cause: error,
      },
    );
  }
  const found = KEY_FIELDS.map((field) => fields[field]).find((value) => typeof value === "string" && value);
  return found as string | undefined;
}
