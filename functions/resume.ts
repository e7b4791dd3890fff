import { z } from "zod";
import { errorMessage } from "../lib/core/errors.ts";
import { RESUMED_BY } from "../lib/core/events.ts";
import { type ResumeResult, resumeRun } from "../lib/steps/resume.ts";
import { recoverRun } from "../lib/steps/sweep.ts";
import type { BenignReason } from "./benign.ts";
import { AWS_SWEEP } from "./deps.ts";
import { controlHandler } from "./handler.ts";
import { defined, ExecutionEndedDetail, eventBridge, ResumeRunDetail } from "./schemas.ts";

const Schema = z.union([
  eventBridge("Step Functions Execution Status Change", ExecutionEndedDetail),
  eventBridge("runlog.ResumeRun", ResumeRunDetail),
]);
type ResumeEvent = z.output<typeof Schema>;

/** What a resume answers, as the HTTP API's resume does (lib/api/views.ts `resumeView`). */
export type ResumeAnswer =
  | { runId: string; resumed: true; generation: number; kind: string }
  | { runId: string; resumed: false; reason: string };

const runIdOf = (event: ResumeEvent) =>
  event["detail-type"] === "runlog.ResumeRun" ? event.detail.runId : event.detail.input.runId;

function answerOf(result: ResumeResult): ResumeAnswer {
  const { runId } = result;
  return result.resumed
    ? { runId, resumed: true, generation: result.generation, kind: result.kind }
    : { runId, resumed: false, reason: result.classification.reason };
}

/** A run being executed, cancelled or moved on by someone else: answered, never sent to the DLQ. */
function benignAnswer(event: ResumeEvent, reason: BenignReason, error: unknown) {
  const runId = runIdOf(event);
  if (event["detail-type"] === "runlog.ResumeRun") return { runId, resumed: false as const, reason };
  return { runId, resumed: false as const, why: errorMessage(error) };
}

/**
 * Resumes runs: after an execution failed, timed out or was aborted (under the
 * sweeper's limits and backoff, as it is automatic), or when a
 * `runlog.ResumeRun` event asks for it (as a person would, no limits).
 */
export const handler = controlHandler(
  "resume",
  Schema,
  async (deps, event) => {
    if (event["detail-type"] === "runlog.ResumeRun") {
      const { runId, model, input } = event.detail;
      return answerOf(await resumeRun(deps, { runId, by: RESUMED_BY.event, ...defined({ model, input }) }));
    }
    return recoverRun(deps, event.detail.input.runId, AWS_SWEEP);
  },
  {
    keys: (event) => ({
      runId: runIdOf(event),
      ...(event["detail-type"] === "runlog.ResumeRun" ? {} : { generation: event.detail.input.generation }),
    }),
    answer: benignAnswer,
  },
);
