import { classify } from "../core/classify.ts";
import type { RunEvent } from "../core/events.ts";
import { type LogStart, readLog } from "../core/log.ts";
import { finalOutput } from "../core/messages.ts";
import { type RunStatus, restingStatus } from "../core/status.ts";
import type { StepDeps, StepInput } from "./deps.ts";
import { expireRun } from "./retention.ts";
import { loadRun } from "./writeNext.ts";

export interface FinishInput extends StepInput {
  /** The lease owner this execution runs under. */
  owner: string;
}

export interface RunOutcome {
  runId: string;
  status: RunStatus;
  output: string | null;
}

/** The Finish task: record the status the run rests in and give up this execution's lease. */
export async function finish(deps: StepDeps, input: FinishInput): Promise<RunOutcome> {
  const events = await loadRun(deps, input.runId);
  const outcome = outcomeOf(input.runId, events);
  // A superseded execution leaves the head to the generation that owns the run.
  if (readLog(events).generation === input.generation) {
    // While the lease is still ours: a resume (which keeps the run first) cannot slip in between.
    await expireRun(deps, input.runId, outcome.status);
    await deps.store.releaseLease(input.runId, input.owner, outcome.status, events.length);
  }
  return outcome;
}

/** The status and final output a log (or its tail from `start`) shows when nobody is executing it. */
export function outcomeOf(runId: string, events: readonly RunEvent[], start?: LogStart): RunOutcome {
  return {
    runId,
    status: restingStatus(events, classify(events, start), start),
    output: finalOutput(events),
  };
}
