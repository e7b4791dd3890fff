import { z } from "zod";
import { METRICS } from "../lib/adapters/aws/metrics.ts";
import { AWS_SWEEP } from "../lib/runtime/aws/handlerDeps.ts";
import { powertools } from "../lib/runtime/aws/powertools.ts";
import { type RedriveOptions, type RedriveReport, redrive } from "../lib/steps/redrive.ts";
import { type SweepReport, sweep } from "../lib/steps/sweep.ts";
import { observedHandler } from "./handler.ts";
import { emit } from "./observability/emit.ts";

/**
 * The scheduled sweep: resumes runs whose executor died. The event itself carries nothing it
 * needs. A run another resumer got to first is skipped, not failed (lib/steps/sweep.ts). With the
 * automatic redrive on (the construct's `redrive` prop), it then redrives the runs that failed
 * retryably and have been quiet long enough (lib/steps/redrive.ts, autoRedrivePolicy).
 */
export const handler = observedHandler({
  step: "sweeper",
  schema: z.unknown(),
  deps: (aws) => Object.assign(aws.control(), { redrivePolicy: aws.redrive }),
  run: async (deps): Promise<SweepReport & { redrive?: RedriveReport }> => {
    const report = await sweep(deps, AWS_SWEEP);
    const { logger, metrics } = powertools();
    // One structured line per sweep, so what it resumed, skipped and failed is in the logs.
    logger.info("runlog sweep", { step: "sweeper", ...report });
    emit(
      metrics,
      [
        [METRICS.sweepExamined, report.examined],
        [METRICS.sweepResumed, report.resumed.length],
        [METRICS.sweepFailed, report.failed.length],
      ],
      {},
    );
    const policy: RedriveOptions | undefined = deps.redrivePolicy;
    if (policy === undefined) return report;
    const redriven = await redrive(deps, policy);
    logger.info("runlog redrive", { step: "sweeper", ...redriven });
    return { ...report, redrive: redriven };
  },
});
