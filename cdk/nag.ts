import { type CfnResource, Token, Validations } from "aws-cdk-lib";
import type { IConstruct } from "constructs";
import { HANDOFF_POLICY_ID, type RunlogStack } from "./runlogStack.ts";

const ack = (scope: IConstruct, rule: string, reason: string) =>
  Validations.of(scope).acknowledge({ id: `AwsSolutions-${rule}`, reason });

/**
 * The cdk-nag AwsSolutions findings this stack accepts, each on the one
 * construct it concerns and with its reason. Anything else fails synthesis.
 */
export function acceptedFindings(stack: RunlogStack): void {
  for (const fn of Object.values(stack.functions)) {
    ack(
      fn,
      "L1",
      "runlog targets Node.js 22 (its tested runtime, arm64); a runtime change is a deliberate upgrade",
    );
    ack(
      fn.role!,
      "IAM5[Resource::*]",
      "only X-Ray's PutTraceSegments/PutTelemetryRecords (active tracing), which support no resource-level permissions",
    );
  }
  const machine = stack.stateMachine;
  ack(
    machine.role,
    "IAM5[Resource::*]",
    "only CloudWatch Logs delivery (logs:*LogDelivery*, Describe*) and X-Ray actions, which support no resource-level permissions",
  );
  // Execution names carry the run id and generation, so only this state machine's executions can be named.
  const logicalId = stack.getLogicalId(machine.node.defaultChild as CfnResource);
  const region = Token.isUnresolved(stack.region) ? "<AWS::Region>" : stack.region;
  const account = Token.isUnresolved(stack.account) ? "<AWS::AccountId>" : stack.account;
  const executions = `arn:<AWS::Partition>:states:${region}:${account}:execution:<${logicalId}.Name>:*`;
  for (const fn of [
    stack.functions.startRun,
    stack.functions.resume,
    stack.functions.sweeper,
    stack.functions.api,
  ]) {
    ack(
      fn.role!,
      `IAM5[Resource::${executions}]`,
      "DescribeExecution on this state machine's executions only: their names (run id + generation) are made at run time",
    );
  }
  // Handoff's own policy (see runlogStack.ts): the same DescribeExecution, for the same reason.
  const handoff = stack.node.tryFindChild(HANDOFF_POLICY_ID);
  if (handoff) {
    ack(
      handoff,
      `IAM5[Resource::${executions}]`,
      "DescribeExecution on this state machine's executions only: their names (run id + generation) are made at run time",
    );
  }
  ack(
    stack.deadLetters,
    "SQS3",
    "this queue is itself the dead-letter destination of the event rules and async invocations",
  );
}
