import { RESUMED_BY } from "../core/events.ts";
import type { ControlDeps } from "./deps.ts";
import { openGeneration } from "./generation/open.ts";
import { type ResumeResult, resumeResult } from "./generation/outcome.ts";

export type { ResumeResult } from "./generation/outcome.ts";

export interface ResumeRequest {
  runId: string;
  /** A model spec to use from here on instead of the run's. */
  model?: string;
  /** A new user message: continue the run with it (any state but cancelled or malformed). */
  input?: string;
  /** Who resumes, recorded on the `resumed` event (see RESUMED_BY). @default "person" */
  by?: string;
  /** The authenticated caller who asked, recorded as the `resumed` event's `actor`. @default none */
  actor?: string;
  /** Whom that caller says it acts for, recorded beside `actor`. @default none */
  onBehalfOf?: string;
}

/**
 * Classify the tail; if the run can go on and nobody is executing it, move it to
 * its next generation (lib/steps/generation/) and execute from the resume point.
 * With `input`, the `resumed` event carries the new user message, closing any
 * call left open. Retrying the same request after a crash or a failed start
 * completes it instead of opening another generation.
 */
export async function resumeRun(deps: ControlDeps, request: ResumeRequest): Promise<ResumeResult> {
  const { runId, input, model } = request;
  const by = request.by ?? RESUMED_BY.person;
  const asked = {
    ...(model === undefined ? {} : { model }),
    ...(request.actor === undefined ? {} : { actor: request.actor }),
    ...(request.onBehalfOf === undefined ? {} : { onBehalfOf: request.onBehalfOf }),
  };
  const outcome = await openGeneration(
    deps,
    input === undefined
      ? { kind: "resume", runId, by, ...asked }
      : { kind: "send", runId, by, input, ...asked },
  );
  return resumeResult(outcome);
}
