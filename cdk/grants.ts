import { ArnFormat, Stack } from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import { Grant, type IGrantable, type IRole, Policy, PolicyStatement } from "aws-cdk-lib/aws-iam";
import { ViaServicePrincipal } from "aws-cdk-lib/aws-kms";
import type { DestinationConfig, IDestination, IFunction } from "aws-cdk-lib/aws-lambda";
import type { ISecret } from "aws-cdk-lib/aws-secretsmanager";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import type { Construct } from "constructs";
import { PARENT_INDEX, STATUS_SHARD_INDEX } from "../lib/adapters/dynamodb/table.ts";

/**
 * What DynamoEventStore calls on the table to read and append runs: no Scan, no batch writes
 * or table-level actions (grantReadWriteData would allow those). With CREATE_ACTIONS, every
 * operation the store's code sends (test/cdk/permissions.test.ts reads them from its code).
 */
export const STORE_ACTIONS = [
  "dynamodb:GetItem",
  // The chunks of big payloads, read in one call.
  "dynamodb:BatchGetItem",
  "dynamodb:Query",
  "dynamodb:PutItem",
  "dynamodb:UpdateItem",
];

/**
 * What creating a run adds: deleting the items of an expired run that TTL has not deleted yet
 * when its id is used again, each only while its TTL has passed (lib/adapters/dynamodb/leftovers.ts).
 */
export const CREATE_ACTIONS = ["dynamodb:DeleteItem"];

/** What only appending to a log (and creating one) calls: the conditional put of an event or a payload. */
const APPEND_ACTIONS = ["dynamodb:PutItem"];

/** How a function uses the store, beyond reading runs and recording their status and leases. */
export interface StoreUse {
  /** Appends events. @default true */
  appends?: boolean;
  /** Creates runs (start, fork). @default false */
  createsRuns?: boolean;
  /** Lists runs (the status index: one Query per status, never a Scan). @default false */
  listByStatus?: boolean;
  /** Lists a run's forks (the parent index: one Query). @default false */
  listForks?: boolean;
  /** Lists and counts an owner's runs (the owner index: one Query). @default false */
  listByOwner?: boolean;
}

/** The owner index of lib/adapters/dynamodb/table.ts (`ownerScope`, `updatedAt`): an owner's runs, newest first. */
export const OWNER_INDEX = "byOwner";

/** Use the run log table as the store does, and no more than `use` says. */
export function grantStore(grantee: IGrantable, table: ITable, use: StoreUse = {}): void {
  const actions = [
    ...STORE_ACTIONS.filter((action) => use.appends !== false || !APPEND_ACTIONS.includes(action)),
    ...(use.createsRuns ? CREATE_ACTIONS : []),
  ];
  grantee.grantPrincipal.addToPrincipalPolicy(new PolicyStatement({ actions, resources: [table.tableArn] }));
  const indexes = [
    ...(use.listByStatus ? [STATUS_SHARD_INDEX] : []),
    ...(use.listForks ? [PARENT_INDEX] : []),
    ...(use.listByOwner ? [OWNER_INDEX] : []),
  ];
  if (indexes.length > 0) {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["dynamodb:Query"],
        resources: indexes.map((index) => `${table.tableArn}/index/${index}`),
      }),
    );
  }
}

/** The id of the policy letting Handoff start executions (cdk/nag.ts acknowledges its finding). */
export const HANDOFF_POLICY_ID = "HandoffExecutions";
/** The id of the policy letting RunTool (a sub-agent's child) and Finish (a child's parent) start executions. */
export const SUBAGENT_POLICY_ID = "SubagentExecutions";

/** The ARN pattern of this state machine's executions (named per run and generation, so not known up front). */
export function executionsArn(stateMachine: StateMachine): string {
  return Stack.of(stateMachine).formatArn({
    service: "states",
    resource: "execution",
    resourceName: `${stateMachine.stateMachineName}:*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

function executionStatements(stateMachine: StateMachine): PolicyStatement[] {
  return [
    new PolicyStatement({ actions: ["states:StartExecution"], resources: [stateMachine.stateMachineArn] }),
    new PolicyStatement({ actions: ["states:DescribeExecution"], resources: [executionsArn(stateMachine)] }),
  ];
}

/** Start executions of this state machine and ask whether they still run (SfnOrchestrator). */
export function grantExecutions(grantee: IGrantable, stateMachine: StateMachine): void {
  for (const statement of executionStatements(stateMachine)) {
    grantee.grantPrincipal.addToPrincipalPolicy(statement);
  }
}

/** Stop this state machine's executions: a cancel stops the execution holding the run (lib/steps/cancel.ts). */
export function grantStopExecutions(grantee: IGrantable, stateMachine: StateMachine): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({ actions: ["states:StopExecution"], resources: [executionsArn(stateMachine)] }),
  );
}

/**
 * grantExecutions for a function the state machine itself invokes (Handoff): in a policy of its
 * own, not the role's default policy, which the function depends on, or the function would wait
 * on the state machine that waits on it (a cycle).
 */
export function grantExecutionsApart(
  scope: Construct,
  id: string,
  role: IRole | readonly IRole[],
  stateMachine: StateMachine,
): Policy {
  const roles = Array.isArray(role) ? [...role] : [role as IRole];
  return new Policy(scope, id, { statements: executionStatements(stateMachine), roles });
}

/**
 * Read the model key: GetSecretValue only (Secret.grantRead adds DescribeSecret, which nothing
 * calls), and decrypting through Secrets Manager when the secret has its own KMS key.
 */
export function grantSecretValue(grantee: IGrantable, secret: ISecret): void {
  Grant.addToPrincipalOrResource({
    grantee,
    actions: ["secretsmanager:GetSecretValue"],
    // A secret known by name has an ARN ending in six characters Secrets Manager chose.
    resourceArns: [secret.secretFullArn ?? `${secret.secretArn}-??????`],
    resource: secret,
  });
  secret.encryptionKey?.grantDecrypt(
    new ViaServicePrincipal(
      `secretsmanager.${Stack.of(secret).region}.amazonaws.com`,
      grantee.grantPrincipal,
    ),
  );
}

/**
 * Where Lambda sends an async invocation that failed after its retries: the queue, with
 * sqs:SendMessage only (SqsDestination's grantSendMessages also gives GetQueueAttributes and
 * GetQueueUrl, which Lambda does not call).
 */
export function deadLetterDestination(queue: IQueue): IDestination {
  return {
    bind(_scope: Construct, fn: IFunction): DestinationConfig {
      fn.addToRolePolicy(new PolicyStatement({ actions: ["sqs:SendMessage"], resources: [queue.queueArn] }));
      return { destination: queue.queueArn };
    },
  };
}

/**
 * What the dead-letter redrive does: receive and delete the queue's messages (never send or
 * purge) and invoke exactly the functions given, unqualified: none of their versions, nothing else.
 */
export function grantRedrive(grantee: IGrantable, queue: IQueue, targets: readonly IFunction[]): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      actions: ["sqs:ReceiveMessage", "sqs:DeleteMessage"],
      resources: [queue.queueArn],
    }),
  );
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      actions: ["lambda:InvokeFunction"],
      resources: targets.map((fn) => fn.functionArn),
    }),
  );
}
