import { Annotations, Stack, Token } from "aws-cdk-lib";
import { CfnTable, type ITable } from "aws-cdk-lib/aws-dynamodb";
import { CfnEventBus, type IEventBus } from "aws-cdk-lib/aws-events";
import { PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import type { IKey } from "aws-cdk-lib/aws-kms";
import { CfnLogGroup } from "aws-cdk-lib/aws-logs";
import { type CfnQueue, Queue } from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import { grantThrough, type KeyUse, kmsActionsFor, queueNeeds, tableNeeds } from "./encryptionGrants.ts";
import { RunlogPropsError } from "./propsError.ts";

/** A kind of resource a customer-managed key can encrypt (the model key secret: decrypt). */
export type KeyKind = "table" | "logs" | "queues" | "bus" | "secret";
export const KEY_KINDS: readonly KeyKind[] = ["table", "logs", "queues", "bus", "secret"];

/** The customer-managed keys by kind of resource; a kind left out keeps AWS-managed encryption. */
export type RunlogEncryptionKeys = { readonly [kind in KeyKind]?: IKey };

/** One key for every kind of resource, or one per kind. */
export type RunlogEncryptionKey = IKey | RunlogEncryptionKeys;

const isKey = (value: unknown): value is IKey =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as IKey).keyArn === "string" &&
  typeof (value as IKey).grant === "function";

function checkKey(prop: string, key: unknown): IKey {
  if (!isKey(key)) throw new RunlogPropsError(prop, "must be a KMS key (kms.IKey, e.g. Key.fromKeyArn)");
  // An alias cannot be granted by ARN in IAM, nor named as a log group's key: the key's own ARN is needed.
  if ("aliasName" in key || (!Token.isUnresolved(key.keyArn) && key.keyArn.includes(":alias/"))) {
    throw new RunlogPropsError(
      prop,
      `must be a key, not an alias (${shownKey(key)}): give Key.fromKeyArn(…) with the key's ARN`,
    );
  }
  return key;
}

/** A key or alias as a person reads it: its alias name or ARN when known at synth, else where it is in the app. */
function shownKey(key: IKey): string {
  const alias = "aliasName" in key ? (key as { aliasName: unknown }).aliasName : undefined;
  if (typeof alias === "string" && !Token.isUnresolved(alias)) return alias;
  if (!Token.isUnresolved(key.keyArn)) return key.keyArn;
  return `the construct ${key.node.path}`;
}

/** The props encryption depends on: which resources the construct makes itself. */
export interface EncryptionProps {
  encryptionKey?: RunlogEncryptionKey;
  table?: ITable;
  eventBus?: IEventBus;
  modelKeySecret?: unknown;
}

const hasOwnKey = (secret: unknown) =>
  typeof secret === "object" &&
  secret !== null &&
  (secret as { encryptionKey?: IKey }).encryptionKey !== undefined;

/** The key of each kind, checked: a synth-time RunlogPropsError naming the prop when one cannot be used. */
export function encryptionKeysOf(props: EncryptionProps): RunlogEncryptionKeys {
  const given = props.encryptionKey;
  if (given === undefined) return {};
  if (isKey(given)) {
    const key = checkKey("encryptionKey", given);
    return {
      ...(props.table ? {} : { table: key }),
      logs: key,
      queues: key,
      ...(props.eventBus ? {} : { bus: key }),
      // A secret that carries its own key is decrypted with that one (grants.ts grantSecretValue).
      ...(props.modelKeySecret === undefined || hasOwnKey(props.modelKeySecret) ? {} : { secret: key }),
    };
  }
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    throw new RunlogPropsError("encryptionKey", `must be a kms.IKey or { ${KEY_KINDS.join(", ")} }`);
  }
  const keys: { [kind in KeyKind]?: IKey } = {};
  for (const [kind, key] of Object.entries(given)) {
    if (!(KEY_KINDS as readonly string[]).includes(kind)) {
      throw new RunlogPropsError(
        `encryptionKey.${kind}`,
        `is not a kind of resource runlog encrypts: ${KEY_KINDS.join(", ")}`,
      );
    }
    if (key !== undefined) keys[kind as KeyKind] = checkKey(`encryptionKey.${kind}`, key);
  }
  const notOurs = (kind: KeyKind, why: string) => {
    if (keys[kind]) throw new RunlogPropsError(`encryptionKey.${kind}`, why);
  };
  if (props.table)
    notOurs(
      "table",
      "is for the table the construct makes: a table given as `table` keeps its own encryption (its key, if any, is granted to the functions)",
    );
  if (props.eventBus)
    notOurs(
      "bus",
      "is for the bus the construct makes: a bus given as `eventBus` keeps its owner's encryption",
    );
  if (props.modelKeySecret === undefined)
    notOurs("secret", "decrypts the model key secret: give modelKeySecret too");
  return keys;
}

/**
 * A KMS key is used only in its own Region: the table, log groups, queues, bus and secret of this
 * stack cannot be encrypted with a key of another (a key imported by ARN names its Region).
 */
function checkKeyRegions(
  stack: Stack,
  given: RunlogEncryptionKey | undefined,
  keys: RunlogEncryptionKeys,
): void {
  if (Token.isUnresolved(stack.region)) return;
  for (const [kind, key] of Object.entries(keys)) {
    const region = key.env.region;
    if (Token.isUnresolved(region) || region === stack.region) continue;
    throw new RunlogPropsError(
      isKey(given) ? "encryptionKey" : `encryptionKey.${kind}`,
      `is a key in ${region} (${shownKey(key)}): a KMS key encrypts only in its own Region, and this stack is in ${stack.region}; give a key (or a multi-Region replica) of ${stack.region}`,
    );
  }
}

/** Add a statement to a key's policy, or warn (naming the prop) that the key's owner must: an imported key's policy is not this stack's. */
function allowService(scope: Construct, prop: string, key: IKey, statement: PolicyStatement): void {
  if (key.addToResourcePolicy(statement).statementAdded) return;
  Annotations.of(scope).addWarningV2(
    `runlog:${prop}`,
    `${prop}: the key is imported, so its policy must already allow ${JSON.stringify(statement.toStatementJson())}`,
  );
}

/** Every role the construct made (the functions', the state machine's): grants are read from them. */
const rolesUnder = (scope: Construct) => scope.node.findAll().filter((c): c is Role => c instanceof Role);

function grantUses(scope: Construct, key: IKey, use: KeyUse): void {
  for (const role of rolesUnder(scope)) grantThrough(role, key, use.service, kmsActionsFor(role, use));
}

/**
 * Encrypt what the construct made with the customer-managed keys, and grant each role exactly the
 * kms: actions its function needs, through the service that uses the key. Called once, at the end
 * of the constructor, when every resource and grant exists. Returns the keys by kind.
 */
export function applyEncryption(
  scope: Construct,
  props: EncryptionProps,
  table: ITable,
): RunlogEncryptionKeys {
  const keys = encryptionKeysOf(props);
  const stack = Stack.of(scope);
  checkKeyRegions(stack, props.encryptionKey, keys);
  const all = scope.node.findAll();
  const tableKey = keys.table ?? props.table?.encryptionKey;
  if (tableKey) {
    if (keys.table) {
      const cfn = all.find((c): c is CfnTable => c instanceof CfnTable);
      if (cfn) cfn.sseSpecification = { sseEnabled: true, sseType: "KMS", kmsMasterKeyId: keys.table.keyArn };
    }
    const streams = table.tableStreamArn ? [table.tableStreamArn] : [];
    grantUses(scope, tableKey, {
      service: "dynamodb",
      resources: [table.tableArn, ...streams],
      needs: tableNeeds,
    });
  }
  if (keys.logs) {
    const logs = keys.logs;
    for (const group of all.filter((c): c is CfnLogGroup => c instanceof CfnLogGroup))
      group.kmsKeyId = logs.keyArn;
    // CloudWatch Logs encrypts with the key itself, for log groups of this account and region only.
    allowService(
      scope,
      "encryptionKey.logs",
      logs,
      new PolicyStatement({
        sid: "RunlogLogGroups",
        principals: [new ServicePrincipal(`logs.${stack.region}.amazonaws.com`)],
        actions: ["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"],
        resources: ["*"],
        conditions: {
          ArnLike: {
            "kms:EncryptionContext:aws:logs:arn": `arn:${stack.partition}:logs:${stack.region}:${stack.account}:log-group:*`,
          },
        },
      }),
    );
  }
  if (keys.queues) {
    const queues = all.filter((c): c is Queue => c instanceof Queue);
    for (const queue of queues) {
      const cfn = queue.node.defaultChild as CfnQueue;
      cfn.sqsManagedSseEnabled = undefined;
      cfn.kmsMasterKeyId = keys.queues.keyArn;
    }
    grantUses(scope, keys.queues, {
      service: "sqs",
      resources: queues.map((q) => q.queueArn),
      needs: queueNeeds,
    });
    // EventBridge sends the events it could not deliver to the dead letters itself (the rules' DLQ).
    allowService(
      scope,
      "encryptionKey.queues",
      keys.queues,
      new PolicyStatement({
        sid: "RunlogRuleDeadLetters",
        principals: [new ServicePrincipal("events.amazonaws.com")],
        actions: ["kms:Decrypt", "kms:GenerateDataKey"],
        resources: ["*"],
        conditions: {
          StringEquals: { "aws:SourceAccount": stack.account },
          ArnLike: {
            "aws:SourceArn": `arn:${stack.partition}:events:${stack.region}:${stack.account}:rule/*`,
          },
        },
      }),
    );
  }
  if (keys.bus) {
    const cfn = all.find((c): c is CfnEventBus => c instanceof CfnEventBus);
    if (cfn) {
      cfn.kmsKeyIdentifier = keys.bus.keyArn;
      // By name, not GetAtt: the bus names the key, so the key's policy cannot name the bus's attributes.
      const busArn = stack.formatArn({ service: "events", resource: "event-bus", resourceName: cfn.name });
      // What EventBridge asks of a key it encrypts a custom bus's events with (as EventBus's kmsKey prop adds).
      allowService(
        scope,
        "encryptionKey.bus",
        keys.bus,
        new PolicyStatement({
          sid: "RunlogEventBus",
          principals: [new ServicePrincipal("events.amazonaws.com")],
          actions: ["kms:Decrypt", "kms:GenerateDataKey", "kms:DescribeKey"],
          resources: ["*"],
          conditions: {
            StringEquals: {
              "aws:SourceAccount": stack.account,
              "aws:SourceArn": busArn,
              "kms:EncryptionContext:aws:events:event-bus:arn": busArn,
            },
          },
        }),
      );
    }
  }
  if (keys.secret) {
    // The role that reads the model key secret (CallModel's) decrypts it through Secrets Manager.
    const needs = (action: string) => (action === "secretsmanager:GetSecretValue" ? ["kms:Decrypt"] : []);
    grantUses(scope, keys.secret, { service: "secretsmanager", resources: [""], needs });
  }
  return keys;
}
