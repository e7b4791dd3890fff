import { Duration } from "aws-cdk-lib";
import { Alarm, ComparisonOperator, type IMetric, Stats, TreatMissingData } from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import type { ITopic } from "aws-cdk-lib/aws-sns";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import type { IStateMachine } from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";
import { METRICS } from "../lib/adapters/aws/metrics.ts";
import { runlogMetric } from "./metrics.ts";

export interface AlarmsProps {
  functions: Readonly<Record<string, IFunction>>;
  stateMachine: IStateMachine;
  deadLetters: IQueue;
  /** The deployment's name: the `deployment` dimension of the runlog metrics it alarms on (cdk/deployment.ts). */
  deployment: string;
  /** How often the sweeper runs: the give-up alarm looks at one sweep's worth of time. @default Duration.minutes(5) */
  sweepEvery?: Duration;
  /** Told when an alarm fires and when it clears. @default no action */
  topic?: ITopic;
}

/** The period of every alarm but the give-ups': SQS reports queue depth every five minutes. */
export const ALARM_PERIOD = Duration.minutes(5);

/**
 * What someone should look at: events or invocations given up on (dead
 * letters), executions that failed or timed out (a step failed after its
 * retries; recovery resumes the run, but something is wrong), runs the sweep
 * stopped resuming (they wait for a person), and each function's errors and
 * throttles. Each fires on one occurrence in its period (the most messages
 * waiting, or the sum of the others). CallModel's errors include model failures
 * Step Functions retried.
 */
export class RunlogAlarms extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    const action = props.topic ? new SnsAction(props.topic) : undefined;
    const alarm = (name: string, metric: IMetric, description: string) => {
      const made = new Alarm(this, name, {
        metric,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: `runlog: ${description}`,
      });
      if (action) {
        made.addAlarmAction(action);
        made.addOkAction(action);
      }
      this.alarms.push(made);
    };
    const sum = { period: ALARM_PERIOD, statistic: Stats.SUM };
    alarm(
      "DeadLetters",
      // A gauge: the most messages waiting at any point of the period, not their sum over samples.
      props.deadLetters.metricApproximateNumberOfMessagesVisible({
        period: ALARM_PERIOD,
        statistic: Stats.MAXIMUM,
      }),
      "events or invocations failed after their retries and wait in the dead-letter queue",
    );
    alarm(
      "ExecutionsFailed",
      props.stateMachine.metricFailed(sum),
      "executions failed: a step failed after its retries (the run is resumed by recovery)",
    );
    alarm(
      "ExecutionsTimedOut",
      props.stateMachine.metricTimedOut(sum),
      "executions ran past executionTimeout",
    );
    alarm(
      "SweepGaveUp",
      // One sweep's worth: a shorter period would clear the alarm between two sweeps.
      runlogMetric(props.deployment, METRICS.sweepGaveUp, Stats.SUM, sweepPeriod(props.sweepEvery)),
      "runs ran out of automatic resumes and wait for a person to resume them (it stays while any does)",
    );
    for (const [handler, fn] of Object.entries(props.functions)) {
      const name = handler[0]!.toUpperCase() + handler.slice(1);
      alarm(`${name}Errors`, fn.metricErrors(sum), `${handler} invocations failed`);
      alarm(`${name}Throttles`, fn.metricThrottles(sum), `${handler} invocations were throttled`);
    }
  }
}

/** One sweep's time, at most a day (CloudWatch's longest alarm period over one evaluation). */
function sweepPeriod(sweepEvery = Duration.minutes(5)): Duration {
  return sweepEvery.toSeconds() > Duration.days(1).toSeconds() ? Duration.days(1) : sweepEvery;
}
