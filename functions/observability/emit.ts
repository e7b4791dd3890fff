import type { Metrics } from "@aws-lambda-powertools/metrics";
import type { MetricUnit } from "@aws-lambda-powertools/metrics/types";
import type { RunlogMetric } from "../../lib/adapters/aws/metrics.ts";

/** Metrics that share the dimensions named `D` (besides `service`). */
type MetricWith<D extends string> = RunlogMetric & { dimensions: readonly D[] };

/**
 * Emit values of metrics that share their dimensions as one EMF line, now. Synchronous from
 * dimensions to publish, so two invocations in one process never mix their dimensions.
 */
export function emit<D extends string = never>(
  metrics: Metrics,
  values: readonly (readonly [MetricWith<D>, number])[],
  dimensions: Record<D, string>,
): void {
  if (values.length === 0) return;
  metrics.addDimensions(dimensions);
  for (const [metric, value] of values) metrics.addMetric(metric.name, metric.unit as MetricUnit, value);
  metrics.publishStoredMetrics();
}
