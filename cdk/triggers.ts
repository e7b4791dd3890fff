import { Duration } from "aws-cdk-lib";
import { type IEventBus, Rule, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import type { IStateMachine } from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";

/** The source and detail-types of the events runlog acts on. */
export const EVENT_SOURCE = "runlog";
export const START_RUN = "runlog.StartRun";
export const RESUME_RUN = "runlog.ResumeRun";
/** The events that steer a run already started (functions/steerRun.ts). */
export const STEER_RUN = ["runlog.SendMessage", "runlog.Decide", "runlog.CancelRun"];
/**
 * Execution endings after which a run may need resuming (SUCCEEDED never does). ABORTED is
 * delivered too, so that a stop made outside runlog is recorded and the run left to a person.
 */
export const ENDINGS_TO_RESUME = ["FAILED", "TIMED_OUT", "ABORTED"];

export interface TriggersProps {
  stateMachine: IStateMachine;
  startRun: IFunction;
  /** Takes runlog.SendMessage, runlog.Decide and runlog.CancelRun events. */
  steerRun: IFunction;
  resume: IFunction;
  sweeper: IFunction;
  /** How often the sweeper looks for runs whose executor died. @default Duration.minutes(5) */
  sweepEvery?: Duration;
  /** Where StartRun, ResumeRun and the steering events arrive: the deployment's own bus, or the one given. */
  eventBus: IEventBus;
  /** Events that could not be delivered to a function land here. */
  deadLetters: IQueue;
  /** Further sources whose StartRun, ResumeRun and steering events are acted on (their `detail.owner` believed). @default none */
  trustedEventSources?: readonly string[];
}

/**
 * What invokes the functions that start executions: the sweep schedule, Step
 * Functions' own status events for this deployment's failed executions (on the
 * default bus, where AWS puts them, matched by its state machine's ARN), and
 * runlog events on the deployment's bus, so no other deployment's reach it.
 */
export class Triggers extends Construct {
  constructor(scope: Construct, id: string, props: TriggersProps) {
    super(scope, id);
    const target = (fn: IFunction) =>
      new LambdaFunction(fn, {
        deadLetterQueue: props.deadLetters,
        retryAttempts: 4,
        maxEventAge: Duration.hours(2),
      });

    new Rule(this, "Sweep", {
      description: "runlog: resume runs whose executor died",
      schedule: Schedule.rate(props.sweepEvery ?? Duration.minutes(5)),
      targets: [target(props.sweeper)],
    });
    new Rule(this, "ExecutionEnded", {
      description: "runlog: resume a run when its execution failed or timed out; record an outside stop",
      eventPattern: {
        source: ["aws.states"],
        detailType: ["Step Functions Execution Status Change"],
        detail: { status: ENDINGS_TO_RESUME, stateMachineArn: [props.stateMachine.stateMachineArn] },
      },
      targets: [target(props.resume)],
    });
    // { source: "runlog", detail-type: "runlog.StartRun", detail: { agent, input, model?, runId?, owner? } }
    const trusted = (props.trustedEventSources ?? []).filter((source) => source !== EVENT_SOURCE);
    new Rule(this, "StartRun", {
      description: "runlog: start a run from an event",
      eventBus: props.eventBus,
      eventPattern: { source: [EVENT_SOURCE, ...trusted], detailType: [START_RUN] },
      targets: [target(props.startRun)],
    });
    // { source: "runlog", detail-type: "runlog.SendMessage" | "runlog.Decide" | "runlog.CancelRun", detail: { runId, … } }
    new Rule(this, "SteerRun", {
      description: "runlog: send a message to, decide a call of, or cancel a run from an event",
      eventBus: props.eventBus,
      eventPattern: { source: [EVENT_SOURCE, ...trusted], detailType: STEER_RUN },
      targets: [target(props.steerRun)],
    });
    // { source: "runlog", detail-type: "runlog.ResumeRun", detail: { runId, model?, input?, owner? } }
    new Rule(this, "ResumeRun", {
      description: "runlog: resume a run from an event",
      eventBus: props.eventBus,
      eventPattern: { source: [EVENT_SOURCE, ...trusted], detailType: [RESUME_RUN] },
      targets: [target(props.resume)],
    });
  }
}
