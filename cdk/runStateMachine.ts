import { Duration, RemovalPolicy, Stack } from "aws-cdk-lib";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";
import { RUN_DEFINITION, TASKS, type TaskName } from "../lib/workflow/definition.ts";

export interface RunStateMachineProps {
  /** The function behind each Task state of lib/workflow's definition. */
  tasks: Readonly<Record<TaskName, IFunction>>;
  /** The longest one execution (one generation of a run) may take. @default Duration.hours(24) */
  timeout?: Duration;
  /** @default RetentionDays.THREE_MONTHS */
  logRetention?: RetentionDays;
  /** The RunTools Map's MaxConcurrency: how many tool calls of one response run at once. @default DEFAULT_MAX_TOOL_CALLS (10) */
  maxToolCalls?: number;
}

/** RUN_DEFINITION, with the Map of tool calls bounded when asked: the one change a deployment may make. */
export function deployedDefinition(maxToolCalls?: number): object {
  if (maxToolCalls === undefined) return RUN_DEFINITION;
  const { States } = RUN_DEFINITION;
  return {
    ...RUN_DEFINITION,
    States: { ...States, RunTools: { ...States.RunTools, MaxConcurrency: maxToolCalls } },
  };
}

/** The stack's name and this construct's path in it ("Default" ids left out, as in logical ids): unique per stack. */
function logName(scope: Construct): string {
  const stack = Stack.of(scope);
  const path = scope.node.scopes.slice(scope.node.scopes.indexOf(stack) + 1).map((s) => s.node.id);
  const parts = [stack.stackName, ...path.filter((id) => id !== "Default")];
  return parts.map((part) => part.replace(/[^A-Za-z0-9_.-]/g, "")).join("-");
}

/**
 * The run loop as a Standard workflow: lib/workflow's RUN_DEFINITION verbatim
 * (but for an optional bound on parallel tool calls), its task placeholders
 * filled by definitionSubstitutions, so the deployed definition is the one the
 * local orchestrator and the tests run.
 */
export class RunStateMachine extends Construct {
  readonly stateMachine: StateMachine;
  readonly timeout: Duration;

  constructor(scope: Construct, id: string, props: RunStateMachineProps) {
    super(scope, id);
    this.timeout = props.timeout ?? Duration.hours(24);
    const logs = new LogGroup(this, "Logs", {
      // The prefix AWS recommends for vended logs, so many state machines do not outgrow one resource policy.
      logGroupName: `/aws/vendedlogs/states/${logName(this)}`,
      retention: props.logRetention ?? RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const substitutions = Object.fromEntries(
      (Object.keys(TASKS) as TaskName[]).map((task) => [TASKS[task], props.tasks[task].functionArn]),
    );
    this.stateMachine = new StateMachine(this, "StateMachine", {
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromString(JSON.stringify(deployedDefinition(props.maxToolCalls))),
      definitionSubstitutions: substitutions,
      timeout: this.timeout,
      tracingEnabled: true,
      // State holds ids and the next action only (never the conversation), so logging data is cheap and safe.
      logs: { destination: logs, level: LogLevel.ALL, includeExecutionData: true },
    });
    // The definition is a string CDK cannot read, so it cannot infer this; the exact ARNs, no wildcard versions.
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({
        actions: ["lambda:InvokeFunction"],
        resources: Object.values(props.tasks).map((fn) => fn.functionArn),
      }),
    );
  }
}
