import { ArnFormat, Stack } from "aws-cdk-lib";
import type { Table } from "aws-cdk-lib/aws-dynamodb";
import { type IGrantable, PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import { STATUS_INDEX } from "../lib/adapters/dynamodb/table.ts";

/**
 * Exactly what DynamoEventStore calls on the table: no Scan, no DeleteItem,
 * no batch or table-level actions (grantReadWriteData would allow those).
 */
export const STORE_ACTIONS = [
  "dynamodb:GetItem",
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

/** The ARN pattern of this state machine's executions (named per run and generation, so not known up front). */
export function executionsArn(stateMachine: StateMachine): string {
  return Stack.of(stateMachine).formatArn({
    service: "states",
    resource: "execution",
    resourceName: `${stateMachine.stateMachineName}:*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

/** Start executions of this state machine and ask whether they still run (SfnOrchestrator). */
export function grantExecutions(grantee: IGrantable, stateMachine: StateMachine): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({ actions: ["states:StartExecution"], resources: [stateMachine.stateMachineArn] }),
  );
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({ actions: ["states:DescribeExecution"], resources: [executionsArn(stateMachine)] }),
  );
}
