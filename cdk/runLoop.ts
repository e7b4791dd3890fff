import type { Duration } from "aws-cdk-lib";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import type { Construct } from "constructs";
import type { StepName } from "./functionMaker.ts";
import { grantExecutionsApart, HANDOFF_POLICY_ID, SUBAGENT_POLICY_ID } from "./grants.ts";
import type { RunlogProps } from "./props.ts";
import { RunStateMachine } from "./runStateMachine.ts";

/** The step functions and tool groups the run loop drives, and how long it keeps its executions and logs. */
export interface RunLoopOptions {
  deployment: string;
  steps: Readonly<Record<StepName, LambdaFunction>>;
  /** Each tool group's RunTool function, by group name. */
  groups: Readonly<Record<string, LambdaFunction>>;
  executionTimeout: Duration;
  logRetention: RetentionDays;
}

/**
 * The Step Functions loop wired to the step functions: its Task states on their published
 * versions and timeouts, and the policies apart that let the steps start its executions.
 */
export function runLoop(
  scope: Construct,
  props: Pick<RunlogProps, "stateMachineLogs" | "concurrency" | "toolGroups">,
  { deployment, steps, groups, executionTimeout, logRetention }: RunLoopOptions,
): StateMachine {
  const machine = new RunStateMachine(scope, "Run", {
    deployment,
    // Published versions, so a deploy does not change the code under a running execution.
    tasks: {
      CallModel: steps.callModel.currentVersion,
      RunTool: steps.runTool.currentVersion,
      RecordModelFailure: steps.recordModelFailure.currentVersion,
      Finish: steps.finish.currentVersion,
      Handoff: steps.handoff.currentVersion,
    },
    timeout: executionTimeout,
    logRetention,
    ...(props.stateMachineLogs === undefined ? {} : { logs: props.stateMachineLogs }),
    taskTimeoutSeconds: {
      CallModel: steps.callModel.timeout!.toSeconds(),
      RunTool: steps.runTool.timeout!.toSeconds(),
      RecordModelFailure: steps.recordModelFailure.timeout!.toSeconds(),
      Finish: steps.finish.timeout!.toSeconds(),
      Handoff: steps.handoff.timeout!.toSeconds(),
    },
    ...(props.concurrency?.maxToolCalls === undefined
      ? {}
      : { maxToolCalls: props.concurrency.maxToolCalls }),
    toolGroups: Object.fromEntries(
      Object.entries(groups).map(([name, fn]) => [
        name,
        {
          tools: props.toolGroups![name]!.tools,
          version: fn.currentVersion,
          timeoutSeconds: fn.timeout!.toSeconds(),
        },
      ]),
    ),
  });
  const stateMachine = machine.stateMachine;
  // Handoff starts the next execution of the machine that invokes it: a policy of its own, apart
  // from the role's default one, so the function does not wait on the machine that waits on it.
  grantExecutionsApart(scope, HANDOFF_POLICY_ID, steps.handoff.role!, stateMachine);
  // A sub-agent call starts its child's execution (RunTool, a group's too), and a child's end
  // resumes its parent (Finish): executions of this machine, so a policy apart for the same reason.
  const childStarters = [steps.runTool, steps.finish, ...Object.values(groups)].map((fn) => fn.role!);
  grantExecutionsApart(scope, SUBAGENT_POLICY_ID, childStarters, stateMachine);
  return stateMachine;
}
