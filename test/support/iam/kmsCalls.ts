import { ACCOUNT, type AwsCall, REGION } from "./awsCalls.ts";
import type { PolicyDocument } from "./template.ts";

/**
 * A KMS key's default policy (AWS's, and CDK's): the account may use the key as its IAM policies
 * allow. IAM allows a kms: call only when the key's policy does too, so the simulation needs it.
 */
export const DEFAULT_KEY_POLICY: PolicyDocument = {
  Version: "2012-10-17",
  Statement: [
    { Effect: "Allow", Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` }, Action: "kms:*", Resource: "*" },
  ],
};

/** DynamoDB actions that write: the table's key makes a data key for them as well as decrypting. */
const WRITES = new Set(["PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"]);

/** The kms: actions a service calls on the caller's behalf for one of its actions on a resource under a customer-managed key. */
function kmsActionsBehind(action: string): string[] {
  const [service, name = ""] = action.split(":");
  switch (service) {
    case "dynamodb":
      return WRITES.has(name) ? ["kms:Decrypt", "kms:GenerateDataKey"] : ["kms:Decrypt"];
    case "sqs":
      if (name === "SendMessage") return ["kms:Decrypt", "kms:GenerateDataKey"];
      return name === "ReceiveMessage" ? ["kms:Decrypt"] : [];
    case "secretsmanager":
      return name === "GetSecretValue" ? ["kms:Decrypt"] : [];
    default:
      return [];
  }
}

/**
 * The KMS calls behind recorded calls when the table, the queues and the model key secret are
 * under the key `keyArn`: DynamoDB, SQS and Secrets Manager call KMS with the caller's
 * credentials, so IAM sees the function's role asking for kms:Decrypt or kms:GenerateDataKey on
 * the key, through that service (`kms:ViaService`).
 */
export function kmsCallsBehind(calls: readonly AwsCall[], keyArn: string): AwsCall[] {
  return calls.flatMap((call) => {
    const service = call.action.split(":")[0]!;
    return kmsActionsBehind(call.action).map((action) => ({
      fn: call.fn,
      action,
      resource: keyArn,
      context: { "kms:ViaService": `${service}.${REGION}.amazonaws.com` },
    }));
  });
}
