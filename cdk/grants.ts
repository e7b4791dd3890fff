import { ArnFormat, Stack } from "aws-cdk-lib";
import type { Table } from "aws-cdk-lib/aws-dynamodb";
import { type IGrantable, type IRole, Policy, PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import type { Construct } from "constructs";
import { STATUS_INDEX } from "../lib/adapters/dynamodb/table.ts";

/**
 * Exactly what DynamoEventStore calls on the table: no Scan, no DeleteItem,
 * no batch writes or table-level actions (grantReadWriteData would allow those).
 */
export const STORE_ACTIONS = [
  "dynamodb:GetItem",
  // The chunks of big payloads, read in one call.
  "dynamodb:BatchGetItem",
  "dynamodb:Query",
  "dynamodb:PutItem",
  "dynamodb:UpdateItem",
];

/** Read and append runs; with `listByStatus`, also query the status index (listRuns). */
export function grantStore(
  grantee: IGrantable,
  table: Table,
  options: { listByStatus?: boolean } = {},
): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({ actions: STORE_ACTIONS, resources: [table.tableArn] }),
  );
  if (options.listByStatus) {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["dynamodb:Query"],
        resources: [`${table.tableArn}/index/${STATUS_INDEX}`],
      }),
    );
  }
}

/** The id of the policy letting Handoff start executions (cdk/nag.ts acknowledges its finding). */
export const HANDOFF_POLICY_ID = "HandoffExecutions";

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
  role: IRole,
  stateMachine: StateMachine,
): Policy {
  return new Policy(scope, id, { statements: executionStatements(stateMachine), roles: [role] });
}
