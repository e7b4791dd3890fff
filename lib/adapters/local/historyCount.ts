/** The part of aws-local-stepfunctions' event log entries we count by. */
export interface LocalEvent {
  type: string;
  state?: { type: string; name?: string };
}

/**
 * How many events Step Functions (Standard, Lambda tasks) writes to an
 * execution's history for one event of aws-local-stepfunctions' log, whose
 * events are coarser: a Task's entry stands for TaskStateEntered plus its first
 * attempt (LambdaFunctionScheduled, Started, Succeeded or Failed), each retry
 * for one more attempt (3), a Map's entry for MapStateEntered and
 * MapStateStarted/Succeeded. Failures and catches are part of an attempt or of
 * the state's exit, so they add nothing.
 */
export function historyCost(event: LocalEvent): number {
  switch (event.type) {
    case "StateEntered":
      if (event.state?.type === "Task") return 4;
      if (event.state?.type === "Map") return 3;
      return 1;
    case "StateRetried":
      return event.state?.type === "Task" ? 3 : 1;
    case "StateFailed":
    case "StateCaught":
      return 0;
    default:
      // StateExited, Execution*, MapIteration*, ParallelBranch*: one each.
      return 1;
  }
}

/** What an execution's local event log shows: its history size, and how often each Task state was entered. */
export interface HistoryCount {
  events: number;
  tasks: Record<string, number>;
}

/** Count the history an execution would have, and its Task states by name, as its local event log goes by. */
export async function countHistory(events: AsyncIterable<LocalEvent>): Promise<HistoryCount> {
  const count: HistoryCount = { events: 0, tasks: {} };
  for await (const event of events) {
    count.events += historyCost(event);
    const name = event.state?.name;
    if (event.type === "StateEntered" && event.state?.type === "Task" && name !== undefined) {
      count.tasks[name] = (count.tasks[name] ?? 0) + 1;
    }
  }
  return count;
}
