import type { Duration } from "aws-cdk-lib";
import { type IMetric, MathExpression } from "aws-cdk-lib/aws-cloudwatch";

/** Series that are absent where nothing happened (CloudWatch sends no datum): zero, so sums add up. */
const filled = (ids: readonly string[]) => ids.map((id) => `FILL(${id}, 0)`).join(" + ");

/**
 * The sum of metrics that are each absent when zero. Without FILL, a sum is absent wherever any
 * one term is (CDK's `metricThrottledRequestsForOperations` adds them bare, so it almost never has
 * a value to alarm on).
 */
export function filledSum(metrics: Record<string, IMetric>, period: Duration, label: string): MathExpression {
  return new MathExpression({
    expression: filled(Object.keys(metrics)),
    usingMetrics: metrics,
    period,
    label,
  });
}

/** What a percentage alarm divides: the failures, and all attempts (failed or not). */
export interface Ratio {
  /** Counts of failures, summed. */
  failures: Record<string, IMetric>;
  /** Counts that with the failures make all attempts (ok ones, or all including failures). */
  total: Record<string, IMetric>;
  /** Whether `total` already counts the failures (Lambda's Invocations do; its Throttles are apart). */
  totalIncludesFailures: boolean;
  /** Below this many failures in a period the percentage is 0: a few failures of a few calls are a blip. */
  minFailures: number;
}

/**
 * The percentage of attempts that failed in each period, 0 while failures are fewer than
 * `minFailures`. The divisor is never less than the failures (an execution that started before
 * the period and failed in it counts), so the value stays within 0–100.
 */
export function failurePercent(ratio: Ratio, period: Duration, label: string): MathExpression {
  const failures = filledSum(ratio.failures, period, "failures");
  const rest = filledSum(ratio.total, period, "attempts");
  const total = ratio.totalIncludesFailures
    ? rest
    : new MathExpression({
        expression: "r + f",
        usingMetrics: { r: rest, f: failures },
        period,
        label: "attempts",
      });
  return new MathExpression({
    expression: `IF(f >= ${ratio.minFailures}, 100 * f / MAX([t, f]), 0)`,
    usingMetrics: { f: failures, t: total },
    period,
    label,
  });
}
