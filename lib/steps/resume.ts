import { RESUMED_BY } from "../core/events.ts";
import { type AdvanceResult, advance } from "./advance.ts";
import type { ControlDeps } from "./deps.ts";

export interface ResumeRequest {
  runId: string;
  /** A model spec to use from here on instead of the run's. */
  model?: string;
  /** A new user message: continue the run with it (any state but cancelled or malformed). */
  input?: string;
  /** Who resumes, recorded on the `resumed` event (see RESUMED_BY). @default "person" */
  by?: string;
}

export type ResumeResult = AdvanceResult;

/**
 * Classify the tail; if the run can go on and nobody is executing it, move it to
 * its next generation (lib/steps/advance.ts) and execute from the resume point.
 * With `input`, the `resumed` event carries the new user message, closing any
 * call left open. Retrying the same request after a crash or a failed start
 * completes it instead of opening another generation.
 */
export function resumeRun(deps: ControlDeps, request: ResumeRequest): Promise<ResumeResult> {
  return advance(deps, {
    runId: request.runId,
    by: request.by ?? RESUMED_BY.person,
    ...(request.input === undefined ? {} : { input: request.input }),
    ...(request.model === undefined ? {} : { model: request.model }),
  });
}
