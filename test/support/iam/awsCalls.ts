import type { HandlerName } from "../../../cdk/runlogFunction.ts";

/**
 * One AWS API call a function made, as IAM authorizes it: who made it (a handler, or whatever a
 * process signed with until it is known to be one), the action and one resource's ARN.
 */
export interface AwsCall<F extends string = HandlerName> {
  fn: F;
  action: string;
  resource: string;
  /** The request's condition keys, as IAM sees them (e.g. `kms:ViaService` when a service calls KMS for the caller). @default none */
  context?: Record<string, string>;
}

/** The account and region every ARN in these tests is built for (test/cdk/synth.ts synthesizes there). */
export const ACCOUNT = "123456789012";
export const REGION = "us-east-1";

/** The IAM service prefix of each SDK client, by its `serviceId`. */
const PREFIXES: Record<string, string> = {
  DynamoDB: "dynamodb",
  SFN: "states",
  "Secrets Manager": "secretsmanager",
  SQS: "sqs",
  Lambda: "lambda",
  EventBridge: "events",
};

/** The resource a call names when no mapping below knows its command: the evaluator refuses it. */
export const UNMAPPED = "unmapped";

type Input = Record<string, unknown>;

const tableArn = (table: unknown): string =>
  String(table).startsWith("arn:") ? String(table) : `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${table}`;

/** A secret named rather than given by ARN: IAM sees its ARN with the six characters Secrets Manager adds. */
const secretArn = (id: unknown): string =>
  String(id).startsWith("arn:")
    ? String(id)
    : `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${id}-AbCdEf`;

/** The ARNs a DynamoDB operation is authorized on, from its input. */
function dynamodbResources(operation: string, input: Input): string[] {
  switch (operation) {
    case "BatchGetItem":
    case "BatchWriteItem":
      return Object.keys((input.RequestItems ?? {}) as Input).map(tableArn);
    // runlog sends no transactions: one would name no TableName, map to UNMAPPED and be reported.
    default: {
      if (input.TableName === undefined) return [UNMAPPED];
      const table = tableArn(input.TableName);
      return input.IndexName === undefined ? [table] : [`${table}/index/${input.IndexName}`];
    }
  }
}

/** The buses a PutEvents names (its entries' EventBusName; none is the account's default bus). */
function busResources(input: Input): string[] {
  const entries = (input.Entries ?? []) as { EventBusName?: string }[];
  const buses = new Set(entries.map((entry) => entry.EventBusName ?? "default"));
  return [...buses].map((bus) =>
    bus.startsWith("arn:") ? bus : `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${bus}`,
  );
}

/** The ARNs a Step Functions operation is authorized on, from its input. */
function statesResources(input: Input): string[] {
  const arn = input.executionArn ?? input.stateMachineArn;
  return arn === undefined ? [UNMAPPED] : [String(arn)];
}

/** A queue's ARN from its URL (`https://sqs.<region>.amazonaws.com/<account>/<name>`). */
function queueArn(url: unknown): string {
  const match = /^https:\/\/sqs\.([\w-]+)\.amazonaws\.com\/(\d{12})\/([\w.-]+)$/.exec(String(url));
  return match ? `arn:aws:sqs:${match[1]}:${match[2]}:${match[3]}` : UNMAPPED;
}

/** A function named rather than given by ARN: IAM sees its ARN (with any qualifier it names). */
const functionArn = (name: unknown): string =>
  String(name).startsWith("arn:") ? String(name) : `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}`;

/** The ARN a call of the services with one resource per call is authorized on, from its input. */
function oneResource(prefix: string, input: Input): string {
  if (prefix === "secretsmanager" && input.SecretId !== undefined) return secretArn(input.SecretId);
  if (prefix === "sqs" && input.QueueUrl !== undefined) return queueArn(input.QueueUrl);
  if (prefix === "lambda" && input.FunctionName !== undefined) return functionArn(input.FunctionName);
  return UNMAPPED;
}

/**
 * The IAM view of one SDK command: its action (service prefix and operation) on each resource
 * its input names. A command this does not know maps to UNMAPPED, which the evaluator reports.
 */
export function callsOf<F extends string>(
  fn: F,
  serviceId: string,
  commandName: string,
  input: Input,
): AwsCall<F>[] {
  const prefix = PREFIXES[serviceId] ?? `unknown-service(${serviceId})`;
  const command = commandName.replace(/Command$/, "");
  // Lambda's Invoke is authorized as lambda:InvokeFunction.
  const operation = prefix === "lambda" && command === "Invoke" ? "InvokeFunction" : command;
  const resources =
    prefix === "events"
      ? busResources(input)
      : prefix === "dynamodb"
        ? dynamodbResources(operation, input)
        : prefix === "states"
          ? statesResources(input)
          : [oneResource(prefix, input)];
  return resources.map((resource) => ({ fn, action: `${prefix}:${operation}`, resource }));
}
