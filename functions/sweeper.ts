import { z } from "zod";
import { METRICS } from "../lib/adapters/aws/metrics.ts";
import { AWS_SWEEP } from "../lib/runtime/aws/handlerDeps.ts";
import { powertools } from "../lib/runtime/aws/powertools.ts";
import { sweep } from "../lib/steps/sweep.ts";
import { controlHandler } from "./handler.ts";
import { emit } from "./observability/emit.ts";
import { countingNewGiveUps } from "./observability/giveUps.ts";

/**
 * The scheduled sweep: resumes runs whose executor died. The event itself carries nothing it
 * needs. A run another resumer got to first is skipped, not failed (lib/steps/sweep.ts).
 */
export const handler = controlHandler("sweeper", z.unknown(), async (deps) => {
  // A run given up stays listed (AWS_SWEEP sweeps `interrupted` too): counted once, not every sweep.
  const report = await sweep(countingNewGiveUps(deps), AWS_SWEEP);
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
  return report;
});
