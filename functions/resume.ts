import { z } from "zod";
import { resumeRun } from "../lib/steps/resume.ts";
import { recoverRun } from "../lib/steps/sweep.ts";
import { AWS_SWEEP } from "./deps.ts";
import { controlHandler } from "./handler.ts";
import { defined, ExecutionEndedDetail, eventBridge, ResumeRunDetail } from "./schemas.ts";

const Schema = z.union([
  eventBridge("Step Functions Execution Status Change", ExecutionEndedDetail),
  eventBridge("runlog.ResumeRun", ResumeRunDetail),
]);

/**
 * Resumes runs: after an execution failed, timed out or was aborted (under the
 * sweeper's limits and backoff, as it is automatic), or when a
 * `runlog.ResumeRun` event asks for it (as a person would, no limits).
 */
export const handler = controlHandler(Schema, async (deps, event) => {
  if (event["detail-type"] === "runlog.ResumeRun") {
    const { runId, model, input } = event.detail;
    return resumeRun(deps, { runId, ...defined({ model, input }) });
  }
  return recoverRun(deps, event.detail.input.runId, AWS_SWEEP);
});
