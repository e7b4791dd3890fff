import { Stack } from "aws-cdk-lib";
import { type IRole, Policy, PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { IKey } from "aws-cdk-lib/aws-kms";

/** What a role does with an encrypted resource, read from the grants it already holds. */
export interface KeyUse {
  /** The service that calls KMS for the role (the `kms:ViaService` condition), e.g. "dynamodb". */
  service: string;
  /** The ARNs (or tokens) of the encrypted resources: a statement on one, or under one (an index), is a use. */
  resources: readonly string[];
  /** The kms: actions each action on those resources needs; an action not listed needs none. */
  needs: (action: string) => readonly string[];
}

/** DynamoDB reads decrypt; writes also make data keys and encrypt (DescribeKey: DynamoDB checks the key). */
const TABLE_READ = ["kms:Decrypt", "kms:DescribeKey"];
const TABLE_WRITE = [...TABLE_READ, "kms:Encrypt", "kms:GenerateDataKey"];
const TABLE_WRITES = ["PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"];

/** What DynamoDB calls KMS for on behalf of a role reading or writing the table (and its stream and indexes). */
export function tableNeeds(action: string): readonly string[] {
  const [service, name = ""] = action.split(":");
  if (service !== "dynamodb") return [];
  return TABLE_WRITES.includes(name) ? TABLE_WRITE : TABLE_READ;
}

/** SQS makes a data key to send and decrypts to receive (and to check a reused data key on send). */
export function queueNeeds(action: string): readonly string[] {
  if (action === "sqs:SendMessage") return ["kms:Decrypt", "kms:GenerateDataKey"];
  if (action === "sqs:ReceiveMessage") return ["kms:Decrypt"];
  return [];
}

/** The statements of a role's default policy (where every grant to it lands), as JSON. */
function statementsOf(role: IRole): { Action?: unknown; Resource?: unknown }[] {
  const policy = role.node.tryFindChild("DefaultPolicy");
  if (!(policy instanceof Policy)) return [];
  const json = policy.document.toJSON() as
    | { Statement?: { Action?: unknown; Resource?: unknown }[] }
    | undefined;
  return json?.Statement ?? [];
}

/**
 * The kms: actions a role needs on a key for what it does with the resources the key encrypts, as
 * its own grants say (grants.ts, the event sources, the destinations): so each role gets exactly
 * what its function needs, and a role that never touches an encrypted resource gets nothing.
 */
export function kmsActionsFor(role: IRole, use: KeyUse): string[] {
  const actions = new Set<string>();
  for (const statement of statementsOf(role)) {
    const resources = [statement.Resource].flat().filter((r): r is string => typeof r === "string");
    if (!resources.some((r) => use.resources.some((encrypted) => r.startsWith(encrypted)))) continue;
    for (const action of [statement.Action].flat()) {
      if (typeof action === "string") for (const kms of use.needs(action)) actions.add(kms);
    }
  }
  return [...actions].sort();
}

/** Grant a role the kms: actions on the key, only through the service that encrypts with it. */
export function grantThrough(role: IRole, key: IKey, service: string, actions: readonly string[]): void {
  if (actions.length === 0) return;
  role.addToPrincipalPolicy(
    new PolicyStatement({
      actions: [...actions],
      resources: [key.keyArn],
      conditions: { StringEquals: { "kms:ViaService": `${service}.${Stack.of(role).region}.amazonaws.com` } },
    }),
  );
}
