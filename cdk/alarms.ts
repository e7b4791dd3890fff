import { createHash } from "node:crypto";
import { Duration } from "aws-cdk-lib";
import type { IHttpApi } from "aws-cdk-lib/aws-apigatewayv2";
import { Alarm, ComparisonOperator, type IMetric, Stats, TreatMissingData } from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import type { ITopic } from "aws-cdk-lib/aws-sns";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import type { IStateMachine } from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";
import { METRICS, type ModelFailureKind } from "../lib/adapters/aws/metrics.ts";
import { failurePercent, filledSum } from "./alarmMath.ts";
import { runlogMetric, runlogSeries } from "./metrics.ts";

export interface AlarmsProps {
  functions: Readonly<Record<string, IFunction>>;
  stateMachine: IStateMachine;
  deadLetters: IQueue;
  /** Stream batches the lifecycle publisher could not publish (cdk/lifecycle.ts). @default none */
  lifecycleDeadLetters?: IQueue;
  table: Pick<ITable, "metric" | "tableName">;
  httpApi: Pick<IHttpApi, "metricServerError" | "metricCount">;
  /** The deployment's name: the `deployment` dimension of the runlog metrics it alarms on (cdk/deployment.ts). */
  deployment: string;
  /** How often the sweeper runs: the give-up and stale-run alarms look at one sweep's worth of time. @default Duration.minutes(5) */
  sweepEvery?: Duration;
  /** How long a run goes without progress before the sweep resumes it (SweepOptions.staleAfterMs). @default Duration.minutes(10) */
  staleAfter?: Duration;
  /** Told when an alarm fires and when it clears. @default no action */
  topic?: ITopic;
  /** Where the runbooks are published: each alarm's description links `<runbookBaseUrl>/<alarm's runbook>.md`. @default "docs/runbooks", in the runlog package */
  runbookBaseUrl?: string;
}

/** The period of the alarms on AWS's metrics: SQS reports queue depth every five minutes. */
export const ALARM_PERIOD = Duration.minutes(5);
/** Executions and model calls are few and long: a percentage over fifteen minutes has a divisor. */
const SLOW_PERIOD = Duration.minutes(15);
/** The table's operations the store calls (lib/adapters/dynamodb/): DynamoDB reports each apart. */
const TABLE_OPERATIONS = ["GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "BatchGetItem"];
/** The sweep's default staleAfterMs (lib/steps/sweepPolicy.ts; AWS_SWEEP keeps it). */
const STALE_AFTER = Duration.minutes(10);
const RUNBOOKS = "docs/runbooks";

/** How an alarm reads its metric: over how many periods, how many of which must breach. */
interface Shape {
  threshold: number;
  comparisonOperator?: ComparisonOperator;
  /** @default 1 */
  evaluationPeriods?: number;
  /** @default evaluationPeriods */
  datapointsToAlarm?: number;
}
/** More than `threshold` in 2 of 3 periods: sustained for ten minutes, not one bad datum. */
const sustained = (threshold: number): Shape => ({ threshold, evaluationPeriods: 3, datapointsToAlarm: 2 });

/**
 * Alarms an on-call can act on, each linking its runbook (docs/runbooks/): a percentage where a
 * count of a few failures among many would page on a blip (executions, each function's errors and
 * throttles, the API's 5xx, model failures by kind), sustained counts where AWS retries for us
 * (the table's throttles and system errors), and a count of one where every one is a run or an
 * event that needs a person (dead letters, runs the sweep gave up on, a run left without progress).
 * Every alarm treats missing data as fine: no datum means nothing failed.
 */
export class RunlogAlarms extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    const action = props.topic ? new SnsAction(props.topic) : undefined;
    const base = (props.runbookBaseUrl ?? RUNBOOKS).replace(/\/+$/, "");
    const alarm = (name: string, runbook: string, metric: IMetric, shape: Shape, meaning: string) => {
      const made = new Alarm(this, name, {
        metric,
        alarmName: alarmName(props.deployment, name),
        threshold: shape.threshold,
        evaluationPeriods: shape.evaluationPeriods ?? 1,
        datapointsToAlarm: shape.datapointsToAlarm ?? shape.evaluationPeriods ?? 1,
        comparisonOperator: shape.comparisonOperator ?? ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: `runlog: ${meaning} Runbook: ${base}/${runbook}.md`,
      });
      if (action) {
        made.addAlarmAction(action);
        made.addOkAction(action);
      }
      this.alarms.push(made);
    };
    const atLeastOne: Shape = {
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    };
    const sum = (period: Duration) => ({ period, statistic: Stats.SUM });
    const sweep = sweepPeriod(props.sweepEvery);

    alarm(
      "DeadLetters",
      "dead-letters",
      // A gauge: the most messages waiting at any point of the period, not their sum over samples.
      props.deadLetters.metricApproximateNumberOfMessagesVisible({
        period: ALARM_PERIOD,
        statistic: Stats.MAXIMUM,
      }),
      atLeastOne,
      "an event or invocation failed after its retries and waits in the dead-letter queue; each one is lost work.",
    );
    if (props.lifecycleDeadLetters) {
      alarm(
        "LifecycleDeadLetters",
        "lifecycle-dead-letters",
        props.lifecycleDeadLetters.metricApproximateNumberOfMessagesVisible({
          period: ALARM_PERIOD,
          statistic: Stats.MAXIMUM,
        }),
        atLeastOne,
        "lifecycle events of runs could not be published after their retries; backends waiting for them are not told.",
      );
    }
    alarm(
      "ExecutionFailureRate",
      "execution-failures",
      failurePercent(
        {
          failures: {
            failed: props.stateMachine.metricFailed(sum(SLOW_PERIOD)),
            timedOut: props.stateMachine.metricTimedOut(sum(SLOW_PERIOD)),
          },
          total: { started: props.stateMachine.metricStarted(sum(SLOW_PERIOD)) },
          totalIncludesFailures: true,
          minFailures: 3,
        },
        SLOW_PERIOD,
        "% of executions failed or timed out",
      ),
      { threshold: 5 },
      "over 5% of executions failed or timed out in 15 minutes (at least 3).",
    );
    for (const [handler, fn] of Object.entries(props.functions)) {
      const name = handler[0]!.toUpperCase() + handler.slice(1);
      alarm(
        `${name}ErrorRate`,
        "function-errors",
        failurePercent(
          {
            failures: { errors: fn.metricErrors(sum(ALARM_PERIOD)) },
            total: { invocations: fn.metricInvocations(sum(ALARM_PERIOD)) },
            totalIncludesFailures: true,
            minFailures: 3,
          },
          ALARM_PERIOD,
          `% of ${handler} invocations failed`,
        ),
        sustained(5),
        `over 5% of ${handler} invocations failed (at least 3 in 5 minutes), in 2 of 3 five-minute periods.`,
      );
      alarm(
        `${name}ThrottleRate`,
        "function-throttles",
        failurePercent(
          {
            failures: { throttles: fn.metricThrottles(sum(ALARM_PERIOD)) },
            total: { invocations: fn.metricInvocations(sum(ALARM_PERIOD)) },
            totalIncludesFailures: false,
            minFailures: 5,
          },
          ALARM_PERIOD,
          `% of ${handler} invocations throttled`,
        ),
        sustained(10),
        `over 10% of ${handler} invocations were throttled (at least 5 in 5 minutes), in 2 of 3 five-minute periods.`,
      );
    }
    const perOperation = (metricName: string) =>
      Object.fromEntries(
        TABLE_OPERATIONS.map((operation) => [
          operation.toLowerCase(),
          props.table.metric(metricName, {
            ...sum(ALARM_PERIOD),
            dimensionsMap: { TableName: props.table.tableName, Operation: operation },
          }),
        ]),
      );
    alarm(
      "TableThrottles",
      "table-throttles",
      filledSum(perOperation("ThrottledRequests"), ALARM_PERIOD, "throttled requests"),
      sustained(10),
      "DynamoDB throttled over 10 of the runs table's requests in 5 minutes, in 2 of 3 five-minute periods.",
    );
    alarm(
      "TableSystemErrors",
      "table-system-errors",
      filledSum(perOperation("SystemErrors"), ALARM_PERIOD, "system errors"),
      sustained(5),
      "DynamoDB answered over 5 of the runs table's requests in 5 minutes with a 500, in 2 of 3 five-minute periods.",
    );
    alarm(
      "Api5xxRate",
      "api-5xx",
      failurePercent(
        {
          failures: { serverErrors: props.httpApi.metricServerError(sum(ALARM_PERIOD)) },
          total: { requests: props.httpApi.metricCount(sum(ALARM_PERIOD)) },
          totalIncludesFailures: true,
          minFailures: 5,
        },
        ALARM_PERIOD,
        "% of API requests answered 5xx",
      ),
      sustained(5),
      "over 5% of the HTTP API's requests were answered 5xx (at least 5 in 5 minutes), in 2 of 3 five-minute periods.",
    );
    const modelCalls = {
      calls: runlogSeries(
        props.deployment,
        METRICS.steps,
        { step: "callModel", outcome: "ok" },
        Stats.SUM,
        SLOW_PERIOD,
      ),
    };
    const modelFailures = (kind: ModelFailureKind) =>
      failurePercent(
        {
          failures: {
            [kind]: runlogSeries(props.deployment, METRICS.modelFailures, { kind }, Stats.SUM, SLOW_PERIOD),
          },
          total: modelCalls,
          totalIncludesFailures: false,
          minFailures: 3,
        },
        SLOW_PERIOD,
        `% of model calls failed (${kind})`,
      );
    alarm(
      "ModelFailuresRetryable",
      "model-failures-retryable",
      modelFailures("retryable"),
      { threshold: 5 },
      "over 5% of model calls (at least 3) in 15 minutes failed after their retries: the provider was unavailable or throttling.",
    );
    alarm(
      "ModelFailuresRejected",
      "model-failures-rejected",
      modelFailures("rejected"),
      { threshold: 5 },
      "over 5% of model calls (at least 3) in 15 minutes were refused by the provider (key, model name, request).",
    );
    alarm(
      "SweepGaveUp",
      "sweep-gave-up",
      // Each run is counted once, when given up: over one sweep's time the alarm clears by the next sweep.
      runlogMetric(props.deployment, METRICS.sweepGaveUp, Stats.SUM, sweep),
      atLeastOne,
      "the sweep gave up on a run after its automatic resumes: it waits for a person to resume it.",
    );
    const staleLimit = staleRunLimit(props.sweepEvery, props.staleAfter);
    alarm(
      "OldestStaleRun",
      "oldest-stale-run",
      runlogMetric(props.deployment, METRICS.oldestStaleRunAge, Stats.MAXIMUM, sweep),
      { threshold: staleLimit.toSeconds() },
      `a run has gone ${staleLimit.toHumanString()} without progress (3 sweeps past staleness) and no sweep resumed it.`,
    );
  }
}

/** One sweep's time, at most a day (CloudWatch's longest alarm period over one evaluation). */
function sweepPeriod(sweepEvery = Duration.minutes(5)): Duration {
  return sweepEvery.toSeconds() > Duration.days(1).toSeconds() ? Duration.days(1) : sweepEvery;
}

/** A stale run is resumed by the next sweep: three sweeps past staleness and still stale, something stops it. */
export function staleRunLimit(sweepEvery = Duration.minutes(5), staleAfter = STALE_AFTER): Duration {
  return Duration.seconds(staleAfter.toSeconds() + 3 * sweepEvery.toSeconds());
}

/** CloudWatch's longest alarm name. */
const MAX_ALARM_NAME = 255;

/**
 * `<deployment>-Alarms-<alarm>` (`Runlog-Alarms-DeadLetters`, `Prod/Agents-Alarms-DeadLetters`):
 * readable in the console and in a page, and apart for two deployments because their names are
 * (cdk/deployment.ts), which a join of stack name and ids with "-" is not (stack `Team`, construct
 * `Agents-Prod` and stack `Team-Agents`, construct `Prod` gave one name). An alarm's name holds no
 * "-", so the last one ends the deployment's. Too long for CloudWatch, the deployment's name is
 * cut and a hash of it added.
 */
export function alarmName(deployment: string, alarm: string): string {
  const suffix = `-Alarms-${alarm}`;
  const name = `${deployment}${suffix}`;
  if (name.length <= MAX_ALARM_NAME) return name;
  const hash = createHash("sha256").update(deployment).digest("hex").slice(0, 8);
  return `${deployment.slice(0, MAX_ALARM_NAME - suffix.length - hash.length - 1)}/${hash}${suffix}`;
}
