import { type CfnResource, Stack, Token, Validations } from "aws-cdk-lib";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import type { Queue } from "aws-cdk-lib/aws-sqs";
import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import type { IConstruct } from "constructs";
import { HANDOFF_POLICY_ID, SUBAGENT_POLICY_ID } from "./grants.ts";
import { type HandlerName, VPC_ACCESS_POLICY } from "./runlogFunction.ts";

/** The parts of the Runlog construct (runlog.ts) its accepted findings are on; runlog.ts calls acceptedFindings, so this is not imported from there. */
export interface NaggedRunlog extends IConstruct {
  readonly functions: Readonly<Record<HandlerName, LambdaFunction>>;
  readonly stateMachine: StateMachine;
  readonly deadLetters: Queue;
  /** Present when the functions run in a VPC. */
  readonly network: object | undefined;
  /** The lifecycle publisher's own dead letters, when it publishes. */
  readonly lifecycle?: { readonly deadLetters: Queue } | undefined;
}

const ack = (scope: IConstruct, rule: string, reason: string) =>
  Validations.of(scope).acknowledge({ id: `AwsSolutions-${rule}`, reason });

/**
 * The cdk-nag AwsSolutions findings runlog accepts, each on the one construct
 * it concerns and with its reason. The construct applies them itself, so any
 * stack that holds it and runs cdk-nag fails on anything else, and only on that. `toolGroups`:
 * the tool groups' RunTool functions, accepted as RunTool is.
 */
export function acceptedFindings(runlog: NaggedRunlog, toolGroups: readonly LambdaFunction[] = []): void {
  for (const fn of [...Object.values(runlog.functions), ...toolGroups]) {
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
    if (runlog.network) {
      ack(
        fn.role!,
        `IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${VPC_ACCESS_POLICY}]`,
        "Lambda attaches a function to the VPC with its role: this policy is AWS's own for exactly that (the network interface actions, which take no resource-level permissions), and what Lambda itself adds to a role it makes",
      );
    }
  }
  const machine = runlog.stateMachine;
  ack(
    machine,
    "SF1",
    "logs failures only by default: ALL with execution data would keep run data in CloudWatch Logs past the runs' retention (the stateMachineLogs prop raises it); the run log in the table is the record",
  );
  ack(
    machine.role,
    "IAM5[Resource::*]",
    "only CloudWatch Logs delivery (logs:*LogDelivery*, Describe*) and X-Ray actions, which support no resource-level permissions",
  );
  // The task functions' versions: a running execution calls the ones it started with, a deploy adds new ones.
  const steps = [runlog.functions.callModel, runlog.functions.runTool, runlog.functions.recordModelFailure];
  for (const fn of [...steps, runlog.functions.finish, runlog.functions.handoff, ...toolGroups]) {
    const id = Stack.of(fn).getLogicalId(fn.node.defaultChild as CfnResource);
    ack(
      machine.role,
      `IAM5[Resource::<${id}.Arn>:*]`,
      "InvokeFunction on the published versions of this task function only: executions started before a deploy still call the versions their definition names",
    );
  }
  // Execution names carry the run id and generation, so only this state machine's executions can be named.
  const stack = Stack.of(runlog);
  const logicalId = stack.getLogicalId(machine.node.defaultChild as CfnResource);
  const region = Token.isUnresolved(stack.region) ? "<AWS::Region>" : stack.region;
  const account = Token.isUnresolved(stack.account) ? "<AWS::AccountId>" : stack.account;
  const executions = `arn:<AWS::Partition>:states:${region}:${account}:execution:<${logicalId}.Name>:*`;
  const describe =
    "DescribeExecution (and, for the API's and runlog.CancelRun's cancel, StopExecution) on this state machine's executions only: their names (run id + generation) are made at run time";
  const { startRun, steerRun, resume, sweeper, api } = runlog.functions;
  for (const fn of [startRun, steerRun, resume, sweeper, api])
    ack(fn.role!, `IAM5[Resource::${executions}]`, describe);
  // Handoff's own policy (see runLoop.ts): the same DescribeExecution, for the same reason.
  const handoff = runlog.node.tryFindChild(HANDOFF_POLICY_ID);
  if (handoff) ack(handoff, `IAM5[Resource::${executions}]`, describe);
  // The sub-agent policy of RunTool and Finish (see runLoop.ts): the same, for the same reason.
  const subagents = runlog.node.tryFindChild(SUBAGENT_POLICY_ID);
  if (subagents) ack(subagents, `IAM5[Resource::${executions}]`, describe);
  ack(
    runlog.deadLetters,
    "SQS3",
    "this queue is itself the dead-letter destination of the event rules and async invocations",
  );
  if (runlog.lifecycle) {
    ack(
      runlog.lifecycle.deadLetters,
      "SQS3",
      "this queue is itself the on-failure destination of the lifecycle publisher's stream",
    );
  }
}
