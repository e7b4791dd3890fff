import type { Duration } from "aws-cdk-lib";
import { MathExpression, Metric } from "aws-cdk-lib/aws-cloudwatch";
import { METRICS_NAMESPACE, METRICS_SERVICE, type RunlogMetric } from "../lib/adapters/aws/metrics.ts";

/** A runlog metric the functions emit with no dimension but `service` (lib/adapters/aws/metrics.ts). */
export function runlogMetric(
  metric: RunlogMetric & { dimensions: readonly [] },
  statistic: string,
  period: Duration,
  label?: string,
): Metric {
  return runlogSeries(metric, {}, statistic, period, label);
}

/** One series of a runlog metric: the values of its dimensions named (an alarm reads one series, not a SEARCH). */
export function runlogSeries<M extends RunlogMetric>(
  metric: M,
  dimensions: Record<M["dimensions"][number], string>,
  statistic: string,
  period: Duration,
  label?: string,
): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: metric.name,
    dimensionsMap: { service: METRICS_SERVICE, ...dimensions },
    statistic,
    period,
    ...(label === undefined ? {} : { label }),
  });
}

/**
 * Every series of a runlog metric that has dimensions (one per step and outcome, per who and
 * kind …): a SEARCH over exactly the dimensions it is emitted with, so a new step or a new
 * `by` shows up without changing the stack.
 */
export function runlogSearch(metric: RunlogMetric, statistic: string, period: Duration): MathExpression {
  const schema = [METRICS_NAMESPACE, "service", ...metric.dimensions].join(",");
  return new MathExpression({
    expression: `SEARCH('{${schema}} MetricName="${metric.name}"', '${statistic}', ${period.toSeconds()})`,
    usingMetrics: {},
    period,
    label: "",
  });
}
