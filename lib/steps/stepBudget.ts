import type { NextAction } from "../ports/runtime.ts";
import { MODEL_CALL_MARGIN_MS, REPORT_MARGIN_MS, TASK_TIMEOUT_SECONDS } from "../workflow/timeouts.ts";

/**
 * Steps (model calls and tool calls) one execution does before it hands the
 * run over to a new execution, so no execution nears Step Functions' limit of
 * 25,000 history events. The arithmetic (Standard workflow, Lambda tasks):
 *
 * - a Task state writes 5 events (Entered, Scheduled, Started, Succeeded, Exited),
 *   and 3 more per retry attempt (Scheduled, Started, Failed);
 * - a Choice writes 2; a Map writes 4, plus 2 per iteration (IterationStarted, IterationSucceeded).
 *
 * A model step is CallModel (5, up to 9 retries: 2 of its own errors, 6 of Lambda's throttles
 * and service errors, 1 timeout: +27), Route (2) and the Map that follows it (4): at most 38. A
 * tool step is RunTool (5, up to 10 retries: +30) in one Map iteration (2): at most 37, or 39 with
 * tool groups (lib/workflow/toolGroupStates.ts: a RouteTool Choice first), still under 20,000. An
 * execution's own start and end (ExecutionStarted/Succeeded, the first Route, Handoff or Finish
 * with their retries, the last Choice and Succeed) stay under 60. So 500 steps are at most
 * 38 × 500 + 60 = 19,060 events even if every step nearly spent every retry (three quarters of
 * 25,000), about 9 per step (4,500) when none does.
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

/**
 * When a step that started at `startedAt` must give up (epoch ms): its task's timeout in the
 * state machine (the Lambda's too, see cdk/runlog.ts; `timeoutSeconds` when a deployment sized the
 * function otherwise) less a margin to report the failure in.
 */
export function stepDeadline(
  task: "CallModel" | "RunTool",
  startedAt: Date,
  timeoutSeconds: number = TASK_TIMEOUT_SECONDS[task],
): number {
  return startedAt.getTime() + timeoutSeconds * 1_000 - REPORT_MARGIN_MS;
}

/**
 * When a model call that a CallModel step started at `startedAt` must end (epoch ms): early
 * enough that what streamed so far is still stored (STORE_RETRY_MS) before the step's deadline.
 */
export function modelDeadline(
  startedAt: Date,
  timeoutSeconds: number = TASK_TIMEOUT_SECONDS.CallModel,
): number {
  return startedAt.getTime() + timeoutSeconds * 1_000 - MODEL_CALL_MARGIN_MS;
}

/**
 * A signal that aborts at `at` (epoch ms, the clock's time, read as `now` by the caller): the
 * deadline a model call is given (ModelRequest.deadline). Already aborted when `at` has passed.
 */
export function deadlineSignal(at: number, now: number): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const reached = () =>
    controller.abort(new Error(`the step's deadline (${new Date(at).toISOString()}) came`));
  if (at <= now) {
    reached();
    return { signal: controller.signal, release: () => {} };
  }
  const timer = setTimeout(reached, at - now);
  // The timer only bounds a call under way: it must not keep a process alive on its own.
  timer.unref();
  return { signal: controller.signal, release: () => clearTimeout(timer) };
}
