import type { Server } from "node:http";
import { type AwsCallLog, AwsFault, jsonService } from "./awsCalls.ts";

/** Secrets Manager's GetSecretValue over the given secrets (by ARN), recording who read which. */
export async function startFakeSecrets(
  secrets: Readonly<Record<string, string>>,
  log: AwsCallLog,
): Promise<{ endpoint: string; server: Server }> {
  return jsonService("secretsmanager", {
    GetSecretValue: ({ SecretId }, fn) => {
      const id = String(SecretId);
      log.record({ fn, action: "secretsmanager:GetSecretValue", resource: id });
      const value = secrets[id];
      if (value === undefined) {
        throw new AwsFault("ResourceNotFoundException", "Secrets Manager can't find the specified secret.");
      }
      return { ARN: id, Name: id.split(":").at(-1), SecretString: value, VersionId: "v1" };
    },
  });
}
