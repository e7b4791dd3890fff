import * as z from "zod";
import { METRICS } from "../lib/adapters/aws/metrics.ts";
import { AWS_SWEEP } from "../lib/runtime/aws/handlerDeps.ts";
import { powertools } from "../lib/runtime/aws/powertools.ts";
import { type RedriveOptions, type RedriveReport, redrive } from "../lib/steps/redrive.ts";
import { type SweepReport, sweep } from "../lib/steps/sweep.ts";
import { observedHandler } from "./handler.ts";
import { emit } from "./observability/emit.ts";
import { countingNewGiveUps } from "./observability/giveUps.ts";
import type { LambdaContext } from "./observability/invocation.ts";

/** Time kept back from the invocation's remaining time: candidates in flight finish, the report is logged. */
export const SWEEP_MARGIN_MS = 30_000;

/** The least budget one sweep gets, even when started late: it always looks at some candidates. */
const MIN_BUDGET_MS = 5_000;

/** Per invocation: its time budget. Across invocations of a warm instance: where an incomplete sweep stopped. */
const state: { budgetMs?: number; cursor?: string } = {};

const swept = observedHandler({
  step: "sweeper",
  schema: z.unknown(),
  deps: (aws) => Object.assign(aws.control(), { redrivePolicy: aws.redrive }),
  run: async (deps): Promise<SweepReport & { redrive?: RedriveReport }> => {
    // A run given up stays listed (AWS_SWEEP sweeps `interrupted` too): counted once, not every sweep.
    const report = await sweep(countingNewGiveUps(deps), {
      ...AWS_SWEEP,
      ...(state.budgetMs === undefined ? {} : { budgetMs: state.budgetMs }),
      ...(state.cursor === undefined ? {} : { cursor: state.cursor }),
    });
    // An incomplete sweep's successor goes on past what it skipped; a complete one starts at the oldest again.
    if (report.cursor === undefined) delete state.cursor;
    else state.cursor = report.cursor;
    const { logger, metrics } = powertools();
    // One structured line per sweep, so what it resumed, skipped and failed is in the logs.
    logger.info("runlog sweep", { step: "sweeper", ...report });
    emit(
      metrics,
      [
        [METRICS.sweepExamined, report.examined],
        [METRICS.sweepResumed, report.resumed.length],
        [METRICS.sweepFailed, report.failed.length],
        // Zero when nothing waits, so the alarm on it sees a value every sweep, not missing data.
        [METRICS.oldestStaleRunAge, Math.round((report.oldestStaleAgeMs ?? 0) / 1000)],
      ],
      {},
    );
    const policy: RedriveOptions | undefined = deps.redrivePolicy;
    if (policy === undefined) return report;
    // After the sweep: runs that failed retryably and were quiet long enough (the construct's `redrive`).
    const redriven = await redrive(deps, policy);
    logger.info("runlog redrive", { step: "sweeper", ...redriven });
    return { ...report, redrive: redriven };
  },
});

/**
 * The scheduled sweep: resumes runs whose executor died. The event itself carries nothing it
 * needs. A run another resumer got to first is skipped, not failed (lib/steps/sweep.ts). It
 * starts no candidate past the invocation's remaining time less a margin, and a warm instance's
 * next sweep continues where an incomplete one stopped. With the automatic redrive on (the
 * construct's `redrive` prop), it then redrives the runs that failed retryably and have been quiet
 * long enough (lib/steps/redrive.ts, autoRedrivePolicy).
 */
export const handler = async (event: unknown, context?: LambdaContext) => {
  const remaining = (
    context as { getRemainingTimeInMillis?: () => number } | undefined
  )?.getRemainingTimeInMillis?.();
  if (remaining === undefined) delete state.budgetMs;
  else state.budgetMs = Math.max(MIN_BUDGET_MS, remaining - SWEEP_MARGIN_MS);
  return swept(event, context);
};
