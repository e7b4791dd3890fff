import { LAMBDA_TRANSIENT, MODEL_FAILED_ON, RETRY_ON, SUPERSEDED_ON, TASK_TIMED_OUT } from "./errors.ts";
import { EXECUTION_TIMEOUT_SECONDS, taskStateTimeoutSeconds } from "./timeouts.ts";
import { groupedToolStates, type ToolGroupsOption } from "./toolGroupStates.ts";
import { groupPlaceholder } from "./toolGroups.ts";

export { TASK_TIMEOUT_SECONDS } from "./timeouts.ts";

/** The Task states, and the placeholder each one's Resource is substituted from. */
export const TASKS = {
  CallModel: "CallModelFunctionArn",
  RunTool: "RunToolFunctionArn",
  RecordModelFailure: "RecordModelFailureFunctionArn",
  Finish: "FinishFunctionArn",
  Handoff: "HandoffFunctionArn",
} as const;
export type TaskName = keyof typeof TASKS;

/** How many tool calls of one response run at once unless a deployment says otherwise. */
export const DEFAULT_MAX_TOOL_CALLS = 10;

/** How Lambda's own transient failures (throttles above all) are retried: 2, 4, 8, 16, 32, 60 s at most, jittered. */
export const LAMBDA_RETRY = {
  IntervalSeconds: 2,
  MaxAttempts: 6,
  BackoffRate: 2,
  MaxDelaySeconds: 60,
  JitterStrategy: "FULL",
} as const;

const resource = (task: TaskName) => `\${${TASKS[task]}}`;
const ids = { "runId.$": "$.runId", "generation.$": "$.generation" };
const retry = (maxAttempts: number) => [
  {
    ErrorEquals: [...RETRY_ON],
    IntervalSeconds: 2,
    MaxAttempts: maxAttempts,
    BackoffRate: 2,
    JitterStrategy: "FULL",
  },
  // A burst of starts throttles Lambda for longer than a few seconds: up to ~2 minutes of backoff.
  {
    ErrorEquals: [...LAMBDA_TRANSIENT],
    ...LAMBDA_RETRY,
  },
  { ErrorEquals: [...TASK_TIMED_OUT], IntervalSeconds: 1, MaxAttempts: 1 },
];
// A superseded or cancelled execution still passes Finish, which releases the lease only if its generation owns the run.
const superseded = { ErrorEquals: [...SUPERSEDED_ON], ResultPath: "$.error", Next: "Finish" };
// A step that could not do its work (the store, after its retries) ends the execution as failed, the run interrupted.
const failed = { ErrorEquals: ["States.ALL"], ResultPath: "$.failure", Next: "Finish" };

/**
 * One execution of a run's step loop, in JSONPath ASL: the one definition the
 * CDK stack deploys and the local orchestrator runs. State carries ids and the
 * next action only, never the conversation.
 *
 * A long run does not stay in one execution: after STEPS_PER_EXECUTION steps
 * (lib/steps/stepBudget.ts, where the history arithmetic is) CallModel answers
 * `handoff`, and the Handoff task continues the run in a new execution of the
 * next generation, through the same resume path as `runlog resume`. This one
 * then ends without Finish: the lease is the new execution's.
 *
 * TimeoutSeconds is the default execution timeout; a stack deploys its own (cdk/runStateMachine.ts).
 */
export const RUN_DEFINITION = {
  Comment: "runlog: execute one generation of a run, one Lambda per model or tool step",
  TimeoutSeconds: EXECUTION_TIMEOUT_SECONDS,
  StartAt: "Route",
  States: {
    Route: {
      Type: "Choice",
      Choices: [
        { Variable: "$.next.action", StringEquals: "model", Next: "CallModel" },
        { Variable: "$.next.action", StringEquals: "tools", Next: "RunTools" },
        { Variable: "$.next.action", StringEquals: "handoff", Next: "Handoff" },
      ],
      Default: "Finish",
    },
    CallModel: {
      Type: "Task",
      Resource: resource("CallModel"),
      Parameters: ids,
      ResultPath: "$.next",
      TimeoutSeconds: taskStateTimeoutSeconds("CallModel"),
      Retry: retry(2),
      // Only the model's own failure is recorded as one; a store failure fails the execution (recovery resumes it).
      Catch: [
        superseded,
        { ErrorEquals: [...MODEL_FAILED_ON], ResultPath: "$.error", Next: "RecordModelFailure" },
        failed,
      ],
      Next: "Route",
    },
    RunTools: {
      Type: "Map",
      ItemsPath: "$.next.callIds",
      // A response may ask for hundreds of calls: this many at once, each a Lambda (cdk's concurrency.maxToolCalls).
      MaxConcurrency: DEFAULT_MAX_TOOL_CALLS,
      // Each call also gets the batch's list: it writes in its place in it (lib/steps/toolTurns.ts).
      ItemSelector: {
        "runId.$": "$.runId",
        "generation.$": "$.generation",
        "callId.$": "$$.Map.Item.Value",
        "batch.$": "$.next.callIds",
        // A sub-agent call starts its child's execution of this same machine (lib/steps/subagents/).
        "stateMachineArn.$": "$$.StateMachine.Id",
      },
      ItemProcessor: {
        ProcessorConfig: { Mode: "INLINE" },
        StartAt: "RunTool",
        States: {
          RunTool: {
            Type: "Task",
            Resource: resource("RunTool"),
            TimeoutSeconds: taskStateTimeoutSeconds("RunTool"),
            Retry: retry(3),
            End: true,
          },
        },
      },
      ResultPath: null,
      Catch: [superseded, failed],
      Next: "CallModel",
    },
    RecordModelFailure: {
      Type: "Task",
      Resource: resource("RecordModelFailure"),
      Parameters: { ...ids, "error.$": "$.error" },
      ResultPath: null,
      TimeoutSeconds: taskStateTimeoutSeconds("RecordModelFailure"),
      Retry: retry(3),
      Catch: [superseded, failed],
      Next: "Finish",
    },
    Handoff: {
      Type: "Task",
      Resource: resource("Handoff"),
      // The state machine's own ARN, so the function starts the next execution of this one without a reference to it.
      Parameters: { ...ids, "owner.$": "$.owner", "stateMachineArn.$": "$$.StateMachine.Id" },
      ResultPath: "$.handoff",
      TimeoutSeconds: taskStateTimeoutSeconds("Handoff"),
      Retry: retry(3),
      Catch: [superseded, failed],
      Next: "HandedOff",
    },
    HandedOff: {
      Type: "Choice",
      Choices: [{ Variable: "$.handoff.handedOff", BooleanEquals: true, Next: "Continued" }],
      Default: "Finish",
    },
    Continued: {
      Type: "Succeed",
      Comment: "the next generation's execution owns the run and its lease; this one ends without Finish",
    },
    Finish: {
      Type: "Task",
      Resource: resource("Finish"),
      // A sub-agent's child that ended resumes its parent: an execution of this same machine.
      Parameters: { ...ids, "owner.$": "$.owner", "stateMachineArn.$": "$$.StateMachine.Id" },
      ResultPath: "$.outcome",
      TimeoutSeconds: taskStateTimeoutSeconds("Finish"),
      Retry: retry(3),
      Catch: [{ ErrorEquals: [...SUPERSEDED_ON], ResultPath: "$.error", Next: "Superseded" }],
      Next: "Ended",
    },
    Ended: {
      Type: "Choice",
      Choices: [{ Variable: "$.failure", IsPresent: true, Next: "Failed" }],
      Default: "Succeeded",
    },
    // A recorded model failure ends quietly (the run rests as `failed`); a step that could not do its work fails.
    Failed: {
      Type: "Fail",
      Error: "RunStepFailed",
      Cause: "a step failed after its retries; the run can be resumed",
    },
    Succeeded: { Type: "Succeed" },
    Superseded: { Type: "Succeed", Comment: "a newer generation owns the run; this execution stops writing" },
  },
} as const;

/** What a deployment, or the local runtime, may change in RUN_DEFINITION. */
export interface DefinitionOptions {
  /** The execution timeout: the top-level TimeoutSeconds. @default EXECUTION_TIMEOUT_SECONDS (24 h) */
  timeoutSeconds?: number | undefined;
  /** How many tool calls of one response run at once: the RunTools Map's MaxConcurrency. @default DEFAULT_MAX_TOOL_CALLS (10) */
  maxToolCalls?: number | undefined;
  /** Each task function's timeout where a deployment sized it otherwise: its Task state waits the margin longer. @default TASK_TIMEOUT_SECONDS */
  taskTimeoutSeconds?: Partial<Record<TaskName, number>> | undefined;
  /** Tool groups, each run by a function of its own: the RunTools Map routes each call by its tool's name (toolGroupStates.ts). @default none: every call runs in RunTool */
  toolGroups?: ToolGroupsOption | undefined;
}

/**
 * RUN_DEFINITION with `options` applied, its task placeholders left for DefinitionSubstitutions.
 * The timeout must be in the definition itself: a definition given as a string
 * (DefinitionBody.fromString) makes CDK drop StateMachine's own `timeout` prop.
 */
export function configuredDefinition(options: DefinitionOptions = {}): Record<string, unknown> {
  const { timeoutSeconds, maxToolCalls, taskTimeoutSeconds = {}, toolGroups } = options;
  // A copy: RUN_DEFINITION is shared and stays as written.
  const States = structuredClone(RUN_DEFINITION.States) as unknown as Record<string, Record<string, unknown>>;
  if (maxToolCalls !== undefined) States.RunTools!.MaxConcurrency = maxToolCalls;
  for (const [task, seconds] of Object.entries(taskTimeoutSeconds) as [TaskName, number | undefined][]) {
    if (seconds === undefined) continue;
    const state =
      task === "RunTool"
        ? (States.RunTools!.ItemProcessor as { States: Record<string, Record<string, unknown>> }).States
            .RunTool!
        : States[task]!;
    state.TimeoutSeconds = taskStateTimeoutSeconds(task, seconds);
  }
  // After the timeouts: each group's Task is a copy of RunTool as configured.
  if (toolGroups !== undefined && Object.keys(toolGroups).length > 0) groupedToolStates(States, toolGroups);
  return {
    ...RUN_DEFINITION,
    ...(timeoutSeconds === undefined ? {} : { TimeoutSeconds: timeoutSeconds }),
    States,
  };
}

/**
 * The configured definition with each task's Resource replaced, as Step Functions' DefinitionSubstitutions
 * would; `groupArns`: each tool group's function, by group name.
 */
export function renderDefinition(
  arns: Readonly<Record<TaskName, string>>,
  options: DefinitionOptions = {},
  groupArns: Readonly<Record<string, string>> = {},
): Record<string, unknown> {
  let text = JSON.stringify(configuredDefinition(options));
  for (const [task, placeholder] of Object.entries(TASKS)) {
    text = text.replaceAll(`\${${placeholder}}`, arns[task as TaskName]);
  }
  for (const group of Object.keys(options.toolGroups ?? {})) {
    const arn = groupArns[group];
    if (arn === undefined) throw new Error(`renderDefinition: no function ARN for tool group ${group}`);
    text = text.replaceAll(`\${${groupPlaceholder(group)}}`, arn);
  }
  return JSON.parse(text) as Record<string, unknown>;
}
