import { classifyFacts } from "../core/classify.ts";
import { STOPPED_OUTSIDE } from "../core/eventConstants.ts";
import type { StepDeps } from "./deps.ts";
import { writeNext } from "./writeNext.ts";

/** An execution that ended ABORTED: which generation it executed and what its stopper said. */
export interface AbortedExecution {
  runId: string;
  generation: number;
  /** The execution's name. */
  execution?: string;
  /** The error and cause given to StopExecution, if any. */
  error?: string;
  cause?: string;
}

/**
 * Record that an execution was stopped by someone outside runlog, if it was: runlog stops an
 * execution only after writing why (a `cancelled` event; a handoff's old execution ends by itself,
 * after the next generation's `resumed`), so an abort the log does not explain is an outside stop.
 * Under the seq lock: the stopped generation must still own the run, and the run must have been
 * under way (resumable, or waiting for approval); then `execution_stopped` is appended, once (a
 * second delivery of the same event finds it). True when this call appended it.
 */
export async function recordOutsideStop(deps: StepDeps, stop: AbortedExecution): Promise<boolean> {
  return writeNext<boolean>(deps, stop.runId, "any", (_events, facts) => {
    // runlog's own stop (a cancel), or a generation a resume already moved past: nothing to record.
    if (facts.cancelled || facts.generation !== stop.generation) return { done: false };
    if (facts.stopped) return { done: false };
    const classification = classifyFacts(facts);
    if (!classification.resumable && classification.reason !== "awaiting_approval") return { done: false };
    return {
      append: {
        type: "execution_stopped",
        generation: stop.generation,
        reason: STOPPED_OUTSIDE,
        ...(stop.execution === undefined ? {} : { execution: stop.execution }),
        ...(stop.error === undefined ? {} : { error: stop.error }),
        ...(stop.cause === undefined ? {} : { cause: stop.cause }),
      },
      result: () => true,
    };
  });
}
