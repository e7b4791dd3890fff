import { GetSecretValueCommand, type SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { errorMessage, PermanentError, RetryableError } from "../lib/core/errors.ts";

const TRANSIENT = new Set(["ThrottlingException", "InternalServiceError", "TimeoutError", "RequestTimeout"]);
/** JSON keys a secret may keep the key under, for secrets made by tools that store key/value pairs. */
const KEY_FIELDS = ["apiKey", "OPENAI_API_KEY", "api_key"];

/**
 * The model API key in a Secrets Manager secret: its plain text, or one of
 * KEY_FIELDS of a JSON object. Throttling and 5xx are retryable; a missing or
 * unreadable secret is permanent (a deployment mistake, not a blip).
 */
export async function readModelKey(client: SecretsManagerClient, secretId: string): Promise<string> {
  let text: string | undefined;
  try {
    text = (await client.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
  } catch (error) {
    const { name, $fault } = error as { name?: string; $fault?: string };
    const what = `read the model key from secret ${secretId}: ${name ?? "Error"}: ${errorMessage(error)}`;
    if ($fault === "server" || (name !== undefined && TRANSIENT.has(name))) {
      throw new RetryableError(what, { cause: error });
    }
    throw new PermanentError(what, { cause: error });
  }
  const key = text === undefined ? undefined : keyIn(text.trim());
  if (!key) {
    throw new PermanentError(
      `secret ${secretId} holds no model key: store the key as plain text or as JSON with one of ${KEY_FIELDS.join(", ")}`,
    );
  }
  return key;
}

function keyIn(text: string): string | undefined {
  if (!text.startsWith("{")) return text || undefined;
  try {
    const fields = JSON.parse(text) as Record<string, unknown>;
    const found = KEY_FIELDS.map((field) => fields[field]).find(
      (value) => typeof value === "string" && value,
    );
    return found as string | undefined;
  } catch {
    return text;
  }
}
