import { type ISecret, Secret } from "aws-cdk-lib/aws-secretsmanager";
import type { Construct } from "constructs";

/**
 * The secret holding the model provider's key (`modelKeySecret`): the one given, or the one its
 * name, complete ARN (ending in Secrets Manager's six-character suffix) or partial ARN names.
 */
export function modelKey(scope: Construct, secret: ISecret | string): ISecret {
  if (typeof secret !== "string") return secret;
  if (!secret.startsWith("arn:")) return Secret.fromSecretNameV2(scope, "ModelKey", secret);
  return /-[A-Za-z0-9]{6}$/.test(secret)
    ? Secret.fromSecretCompleteArn(scope, "ModelKey", secret)
    : Secret.fromSecretPartialArn(scope, "ModelKey", secret);
}
