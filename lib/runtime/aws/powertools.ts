import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";
import { METRICS_NAMESPACE, METRICS_SERVICE } from "../../adapters/aws/metrics.ts";

/** The structured logger and the EMF metrics of one function instance (its traces: xray.ts). */
export interface Powertools {
  logger: Logger;
  metrics: Metrics;
}

let made: Powertools | undefined;

/**
 * This instance's Powertools, made on first use rather than at import: they read their settings
 * (POWERTOOLS_LOG_LEVEL, POWERTOOLS_METRICS_DISABLED …) from the environment when made, and a
 * process that sets them before its first invocation (a test, a bundle run locally) is obeyed.
 * Logs and metrics are JSON lines on stdout, outside Lambda as in it.
 */
export function powertools(): Powertools {
  made ??= {
    logger: new Logger({ serviceName: METRICS_SERVICE }),
    metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE }),
  };
  return made;
}
