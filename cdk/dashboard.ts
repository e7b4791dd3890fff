import { Duration } from "aws-cdk-lib";
import {
  Dashboard,
  GraphWidget,
  type IMetric,
  type IWidget,
  Stats,
  TextWidget,
} from "aws-cdk-lib/aws-cloudwatch";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import type { IStateMachine } from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";
import { METRICS } from "../lib/adapters/aws/metrics.ts";
import { runlogMetric, runlogSearch } from "./metrics.ts";

export interface RunlogDashboardProps {
  functions: Readonly<Record<string, IFunction>>;
  stateMachine: IStateMachine;
  deadLetters: IQueue;
  /** The deployment's name: the `deployment` dimension of the runlog metrics shown (cdk/deployment.ts). */
  deployment: string;
}

const PERIOD = Duration.minutes(5);
const WIDTH = 8;
const HEIGHT = 6;

/**
 * One CloudWatch dashboard for a runlog: executions, steps (by outcome, duration, Lambda errors
 * and throttles), the model (latency, tokens, failures), tools, lost seq races, resumes by who
 * and kind, sweeps, and the dead-letter queue. The runlog metrics are the ones the functions
 * emit (lib/adapters/aws/metrics.ts), over every step and outcome they are emitted with.
 */
export class RunlogDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: RunlogDashboardProps) {
    super(scope, id);
    const { stateMachine: machine, functions, deployment } = props;
    const sum = (metric: Parameters<typeof runlogMetric>[1], label?: string) =>
      runlogMetric(deployment, metric, Stats.SUM, PERIOD, label);
    const perFunction = (of: (fn: IFunction, label: string) => IMetric) =>
      Object.entries(functions).map(([name, fn]) => of(fn, name));
    const graph = (title: string, left: IMetric[], right: IMetric[] = []) =>
      new GraphWidget({ title, left, right, width: WIDTH, height: HEIGHT, period: PERIOD });

    const widgets: IWidget[] = [
      new TextWidget({
        markdown: `# runlog ${deployment}\nMetrics in namespace \`runlog\` (dimension \`deployment\` = \`${deployment}\`) are emitted by the functions (EMF); see runlog's cdk/README.md.`,
        width: 24,
        height: 2,
      }),
      graph("Executions", [
        machine.metricStarted({ statistic: Stats.SUM, label: "started" }),
        machine.metricSucceeded({ statistic: Stats.SUM, label: "succeeded" }),
        machine.metricFailed({ statistic: Stats.SUM, label: "failed" }),
        machine.metricTimedOut({ statistic: Stats.SUM, label: "timed out" }),
      ]),
      graph("Steps by step and outcome", [runlogSearch(deployment, METRICS.steps, Stats.SUM, PERIOD)]),
      graph("Step duration p90 (ms)", [runlogSearch(deployment, METRICS.stepDuration, Stats.p(90), PERIOD)]),
      graph(
        "Function errors",
        perFunction((fn, label) => fn.metricErrors({ statistic: Stats.SUM, label })),
      ),
      graph(
        "Function throttles",
        perFunction((fn, label) => fn.metricThrottles({ statistic: Stats.SUM, label })),
      ),
      graph("Model latency (ms)", [
        runlogMetric(deployment, METRICS.modelLatency, Stats.p(50), PERIOD, "p50"),
        runlogMetric(deployment, METRICS.modelLatency, Stats.p(90), PERIOD, "p90"),
        runlogMetric(deployment, METRICS.modelLatency, Stats.MAXIMUM, PERIOD, "max"),
      ]),
      graph("Model tokens", [
        sum(METRICS.modelInputTokens, "input"),
        sum(METRICS.modelOutputTokens, "output"),
      ]),
      graph("Model failures by kind, and tool errors", [
        runlogSearch(deployment, METRICS.modelFailures, Stats.SUM, PERIOD),
        sum(METRICS.toolErrors, "tool errors"),
      ]),
      graph("Lost seq races", [sum(METRICS.lostSeqRaces, "lost races")]),
      graph("Resumes by who and kind", [runlogSearch(deployment, METRICS.resumes, Stats.SUM, PERIOD)]),
      graph(
        "Sweeps",
        [
          sum(METRICS.sweepExamined, "examined"),
          sum(METRICS.sweepResumed, "resumed"),
          sum(METRICS.sweepFailed, "failed"),
          sum(METRICS.sweepGaveUp, "gave up"),
          sum(METRICS.approvalsExpired, "approvals expired"),
          sum(METRICS.executionsStoppedOutside, "stopped outside runlog"),
        ],
        [runlogMetric(deployment, METRICS.oldestStaleRunAge, Stats.MAXIMUM, PERIOD, "oldest stale run (s)")],
      ),
      graph("Dead-letter queue depth", [
        props.deadLetters.metricApproximateNumberOfMessagesVisible({
          statistic: Stats.MAXIMUM,
          label: "waiting",
        }),
      ]),
    ];
    // One row: CloudWatch's Row wraps its widgets at the grid's 24 columns.
    this.dashboard = new Dashboard(this, "Dashboard", { widgets: [widgets] });
  }
}
