/**
 * What an execution's Step Functions history would hold (Standard, Lambda tasks), counted by the
 * interpreter as it goes, so the local runtime hands a long run over before the 25,000-event limit
 * exactly as a deployment does (lib/steps/stepBudget.ts has the arithmetic):
 *
 * - the execution's start and its end (succeeded, failed or timed out): 1 each;
 * - entering a state: a Task 4 (TaskStateEntered and its first attempt: LambdaFunctionScheduled,
 *   Started, Succeeded or Failed), a Map 3 (MapStateEntered, MapStateStarted, and its end), any
 *   other 1; leaving it (also by a Catch): 1;
 * - a retry: a Task 3 (one more attempt), a Map 1;
 * - a Map iteration: 1 when it starts and 1 when it succeeds or fails. An iteration stopped because
 *   another failed counts nothing more once stopped.
 *
 * Failures and catches are part of an attempt or of the state's exit: they add nothing.
 */
export interface HistoryCount {
  events: number;
  /** How often each Task state was entered (not its retries), by state name. */
  tasks: Record<string, number>;
}

export const HISTORY_COST = {
  execution: 1,
  enter: { Task: 4, Map: 3, other: 1 },
  exit: 1,
  retry: { Task: 3, Map: 1 },
  iteration: 1,
} as const;
