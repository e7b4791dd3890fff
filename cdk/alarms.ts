import { Duration } from "aws-cdk-lib";
import { Alarm, ComparisonOperator, type IMetric, TreatMissingData } from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import type { ITopic } from "aws-cdk-lib/aws-sns";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import type { IStateMachine } from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";

export interface AlarmsProps {
  functions: Readonly<Record<string, IFunction>>;
  stateMachine: IStateMachine;
  deadLetters: IQueue;
  /** Told when an alarm fires and when it clears. @default no action */
  topic?: ITopic;
}

const PERIOD = Duration.minutes(5);

/**
 * What someone should look at: events or invocations given up on (dead
 * letters), executions that failed or timed out (a step failed after its
 * retries; recovery resumes the run, but something is wrong), and each
 * function's errors and throttles. Each fires on one occurrence in five
 * minutes. CallModel's errors include model failures Step Functions retried.
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
    alarm(
      "DeadLetters",
      props.deadLetters.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: "Maximum" }),
      "events or invocations failed after their retries and wait in the dead-letter queue",
    );
    alarm(
      "ExecutionsFailed",
      props.stateMachine.metricFailed({ period: PERIOD }),
      "executions failed: a step failed after its retries (the run is resumed by recovery)",
    );
    alarm(
      "ExecutionsTimedOut",
      props.stateMachine.metricTimedOut({ period: PERIOD }),
      "executions ran past executionTimeout",
    );
    for (const [handler, fn] of Object.entries(props.functions)) {
      const name = handler[0]!.toUpperCase() + handler.slice(1);
      alarm(`${name}Errors`, fn.metricErrors({ period: PERIOD }), `${handler} invocations failed`);
      alarm(
        `${name}Throttles`,
        fn.metricThrottles({ period: PERIOD }),
        `${handler} invocations were throttled`,
      );
    }
  }
}
