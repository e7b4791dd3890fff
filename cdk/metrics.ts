import type { Duration } from "aws-cdk-lib";
import { MathExpression, Metric } from "aws-cdk-lib/aws-cloudwatch";
import {
  METRICS_DEPLOYMENT,
  METRICS_NAMESPACE,
  METRICS_SERVICE,
  type RunlogMetric,
} from "../lib/adapters/aws/metrics.ts";

/**
 * A runlog metric the functions emit with no dimension but `service` and `deployment`
 * (lib/adapters/aws/metrics.ts): this deployment's series only.
 */
export function runlogMetric(
  deployment: string,
  metric: RunlogMetric & { dimensions: readonly [] },
  statistic: string,
  period: Duration,
  label?: string,
): Metric {
  return runlogSeries(deployment, metric, {}, statistic, period, label);
}

/** One series of a runlog metric of this deployment: the values of its dimensions named (an alarm reads one series, not a SEARCH). */
export function runlogSeries<M extends RunlogMetric>(
  deployment: string,
  metric: M,
  dimensions: Record<M["dimensions"][number], string>,
  statistic: string,
  period: Duration,
  label?: string,
): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: metric.name,
    dimensionsMap: { service: METRICS_SERVICE, [METRICS_DEPLOYMENT]: deployment, ...dimensions },
    statistic,
    period,
    ...(label === undefined ? {} : { label }),
  });
}

/**
 * Every series of a runlog metric that has dimensions (one per step and outcome, per who and
 * kind …) of this deployment: a SEARCH over exactly the dimensions it is emitted with, so a new
 * step or a new `by` shows up without changing the stack, and another deployment's never does.
 */
export function runlogSearch(
  deployment: string,
  metric: RunlogMetric,
  statistic: string,
  period: Duration,
): MathExpression {
  const schema = [METRICS_NAMESPACE, "service", METRICS_DEPLOYMENT, ...metric.dimensions].join(",");
  const terms = `MetricName="${metric.name}" ${METRICS_DEPLOYMENT}="${deployment}"`;
  return new MathExpression({
    expression: `SEARCH('{${schema}} ${terms}', '${statistic}', ${period.toSeconds()})`,
    usingMetrics: {},
    period,
    label: "",
  });
}
