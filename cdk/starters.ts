import { Duration } from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import type { Construct } from "constructs";
import { NAMES } from "../lib/runtime/config.ts";
import { modelsEnvironment, startRunEnvironment, trustedSourcesEnvironment } from "./edgeProps.ts";
import type { MakeFunction } from "./functionMaker.ts";
import { deadLetterDestination, grantExecutions, grantStopExecutions, grantStore } from "./grants.ts";
import type { RunlogProps } from "./props.ts";

/** The functions that start and restart executions, invoked asynchronously (events, the schedule). */
export interface Starters {
  startRun: LambdaFunction;
  steerRun: LambdaFunction;
  resume: LambdaFunction;
  sweeper: LambdaFunction;
}

/**
 * The functions that start executions of the run loop (startRun, steerRun, resume, sweeper),
 * each retried twice when invoked asynchronously and then sent to the dead-letter queue.
 */
export function makeStarters(
  scope: Construct,
  make: MakeFunction,
  props: RunlogProps,
  { table, stateMachine }: { table: ITable; stateMachine: StateMachine },
): { starters: Starters; deadLetters: Queue } {
  const control = { [NAMES.stateMachineArn]: stateMachine.stateMachineArn };
  const starters = {
    startRun: make("startRun", { ...control, ...startRunEnvironment(props) }),
    // Sends, decisions and cancels from events: a send or the last decision resumes the run.
    steerRun: make("steerRun", { ...control, ...trustedSourcesEnvironment(props) }),
    resume: make("resume", {
      ...control,
      ...modelsEnvironment(props),
      ...trustedSourcesEnvironment(props),
    }),
    sweeper: make("sweeper", {
      ...control,
      ...(props.redrive ? { [NAMES.redriveAfterMs]: String(props.redrive.after.toMilliseconds()) } : {}),
    }),
  };
  const deadLetters = new Queue(scope, "DeadLetters", {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  for (const [name, fn] of Object.entries(starters)) {
    grantStore(fn, table, { createsRuns: name === "startRun", listByStatus: name === "sweeper" });
    grantExecutions(fn, stateMachine);
    fn.configureAsyncInvoke({ retryAttempts: 2, onFailure: deadLetterDestination(deadLetters) });
  }
  // A runlog.CancelRun stops the execution holding the run, as the API's cancel does.
  grantStopExecutions(starters.steerRun, stateMachine);
  return { starters, deadLetters };
}
