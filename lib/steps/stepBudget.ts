import type { NextAction } from "../ports/runtime.ts";
import { TASK_TIMEOUT_SECONDS } from "../workflow/definition.ts";

/**
 * Steps (model calls and tool calls) one execution does before it hands the
 * run over to a new execution, so no execution nears Step Functions' limit of
 * 25,000 history events. The arithmetic (Standard workflow, Lambda tasks):
 *
 * - a Task state writes 5 events (Entered, Scheduled, Started, Succeeded, Exited),
 *   and 3 more per retry attempt (Scheduled, Started, Failed);
 * - a Choice writes 2; a Map writes 4, plus 2 per iteration (IterationStarted, IterationSucceeded).
 *
 * A model step is CallModel (5, up to 5 retries: +15), Route (2) and the Map
 * that follows it (4): at most 26. A tool step is RunTool (5, up to 6 retries:
 * +18) in one Map iteration (2): at most 25. An execution's own start and end
 * (ExecutionStarted/Succeeded, the first Route, Handoff or Finish with their
 * retries, the last Choice and Succeed) stay under 60. So 500 steps are at
 * most 26 × 500 + 60 = 13,060 events even if every step nearly spent its
 * retries, about 9 per step (4,500) when none does: a wide margin below 25,000.
 * A handoff comes before a tool batch that would cross the bound, so only a
 * single batch wider than the bound (started by a fresh execution) exceeds it.
 */
export const STEPS_PER_EXECUTION = 500;

// The steps this generation's execution has done are a fact of its log: LogFacts.generationSteps.

/**
 * `next`, or a handoff when doing it would take this execution past `limit`
 * steps. An execution that has done nothing yet never hands off, so a batch
 * wider than the limit still runs (in an execution of its own).
 */
export function withinBudget(next: NextAction, used: number, limit: number): NextAction {
  if (next.action !== "model" && next.action !== "tools") return next;
  const width = next.action === "tools" ? next.callIds.length : 1;
  return used > 0 && used + width > limit ? { action: "handoff" } : next;
}

/** Kept back from a task's timeout so a step that gives up still has time to report why. */
const REPORT_MARGIN_MS = 15_000;

/**
 * The longest a step keeps trying to store work it has done once the store fails, however much
 * of its task's time is left: a person may be waiting on a local run.
 */
export const STORE_RETRY_MS = 60_000;

/**
 * When a step that started at `startedAt` must give up (epoch ms): its task's timeout in the
 * state machine (the Lambda's too, see cdk/runlog.ts) less a margin to report the failure in.
 */
export function stepDeadline(task: "CallModel" | "RunTool", startedAt: Date): number {
  return startedAt.getTime() + TASK_TIMEOUT_SECONDS[task] * 1_000 - REPORT_MARGIN_MS;
}
