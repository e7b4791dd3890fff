import { Duration, RemovalPolicy } from "aws-cdk-lib";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { Version } from "aws-cdk-lib/aws-lambda";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";
import { configuredDefinition, TASKS, type TaskName } from "../lib/workflow/definition.ts";
import { EXECUTION_TIMEOUT_SECONDS } from "../lib/workflow/timeouts.ts";
import { groupPlaceholder } from "../lib/workflow/toolGroups.ts";

/**
 * What the run state machine writes to its log group. Execution data (each state's input and
 * output) holds run ids and next actions, and, on a failure, the error's message; raising the
 * level to ALL with execution data also keeps, for the log group's retention, what a run's
 * retention would have deleted from the table.
 */
export interface StateMachineLogs {
  /** @default LogLevel.ERROR */
  level?: LogLevel;
  /** Include each state's input and output. @default false */
  includeExecutionData?: boolean;
}

export interface RunStateMachineProps {
  /** The deployment's name (cdk/deployment.ts): its log group is named from it, unique and token-free. */
  deployment: string;
  /** The published version behind each Task state of lib/workflow's definition: an execution calls the versions it started with. */
  tasks: Readonly<Record<TaskName, Version>>;
  /** The longest one execution (one generation of a run) may take, in whole seconds. @default Duration.hours(24) */
  timeout?: Duration;
  /** @default RetentionDays.THREE_MONTHS */
  logRetention?: RetentionDays;
  /** What the state machine logs. @default { level: LogLevel.ERROR, includeExecutionData: false } */
  logs?: StateMachineLogs;
  /** Each task function's timeout in seconds: its Task state waits a minute longer. @default TASK_TIMEOUT_SECONDS */
  taskTimeoutSeconds?: Partial<Record<TaskName, number>>;
  /** The RunTools Map's MaxConcurrency: how many tool calls of one response run at once. @default DEFAULT_MAX_TOOL_CALLS (10) */
  maxToolCalls?: number;
  /** Each tool group's tools, its function's published version and timeout in seconds: the RunTools Map routes its calls there. @default none */
  toolGroups?: Readonly<
    Record<string, { tools: readonly string[]; version: Version; timeoutSeconds: number }>
  >;
}

/**
 * The run loop as a Standard workflow: lib/workflow's RUN_DEFINITION verbatim
 * (but for its execution timeout and an optional bound on parallel tool calls), its task placeholders
 * filled by definitionSubstitutions, so the deployed definition is the one the
 * local orchestrator and the tests run. Each Resource is a published version's
 * qualified ARN (function:name:N), not $LATEST: Step Functions runs an execution
 * on the definition it started with, so a deploy changes the code of the
 * executions started after it (a handoff, a resume) and never of one under way.
 */
export class RunStateMachine extends Construct {
  readonly stateMachine: StateMachine;
  readonly timeout: Duration;

  constructor(scope: Construct, id: string, props: RunStateMachineProps) {
    super(scope, id);
    this.timeout = props.timeout ?? Duration.seconds(EXECUTION_TIMEOUT_SECONDS);
    const logs = new LogGroup(this, "Logs", {
      // The prefix AWS recommends for vended logs, so many state machines do not outgrow one resource policy.
      logGroupName: `/aws/vendedlogs/states/${props.deployment}-${id}`,
      retention: props.logRetention ?? RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const groups = Object.entries(props.toolGroups ?? {});
    const substitutions = Object.fromEntries([
      ...(Object.keys(TASKS) as TaskName[]).map((task) => [TASKS[task], props.tasks[task].functionArn]),
      ...groups.map(([name, group]) => [groupPlaceholder(name), group.version.functionArn]),
    ]);
    // Whole seconds (toSeconds throws on a fraction), as ASL's TimeoutSeconds is.
    const definition = configuredDefinition({
      timeoutSeconds: this.timeout.toSeconds(),
      maxToolCalls: props.maxToolCalls,
      taskTimeoutSeconds: props.taskTimeoutSeconds,
      ...(groups.length === 0 ? {} : { toolGroups: props.toolGroups }),
    });
    this.stateMachine = new StateMachine(this, "StateMachine", {
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromString(JSON.stringify(definition)),
      definitionSubstitutions: substitutions,
      tracingEnabled: true,
      // Failures only, without execution data, unless asked: the log keeps nothing the table forgets.
      logs: {
        destination: logs,
        level: props.logs?.level ?? LogLevel.ERROR,
        includeExecutionData: props.logs?.includeExecutionData ?? false,
      },
    });
    // The definition is a string CDK cannot read, so it cannot infer this. Every version of exactly
    // these functions: the role is updated by a deploy while executions started before it still call
    // the versions their definition names, which an allow of the new versions only would deny.
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({
        actions: ["lambda:InvokeFunction"],
        resources: [...Object.values(props.tasks), ...groups.map(([, group]) => group.version)].map(
          (version) => `${version.lambda.functionArn}:*`,
        ),
      }),
    );
  }
}
