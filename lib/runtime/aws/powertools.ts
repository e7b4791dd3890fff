import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";
import { Tracer } from "@aws-lambda-powertools/tracer";
import { METRICS_NAMESPACE, METRICS_SERVICE } from "../../adapters/aws/metrics.ts";

/** The structured logger, the EMF metrics and the X-Ray tracer of one function instance. */
export interface Powertools {
  logger: Logger;
  metrics: Metrics;
  tracer: Tracer;
}

let made: Powertools | undefined;

/**
 * This instance's Powertools, made on first use rather than at import: they read their settings
 * (POWERTOOLS_LOG_LEVEL, POWERTOOLS_METRICS_DISABLED …) from the environment when made, and a
 * process that sets them before its first invocation (a test, a bundle run locally) is obeyed.
 * Outside Lambda the tracer is off (it needs AWS_EXECUTION_ENV) and captured clients are left
 * as they are; logs and metrics are JSON lines on stdout there as in Lambda.
 */
export function powertools(): Powertools {
  made ??= {
    logger: new Logger({ serviceName: METRICS_SERVICE }),
    metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE }),
    tracer: new Tracer({ serviceName: METRICS_SERVICE }),
  };
  return made;
}
