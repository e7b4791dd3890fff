/** The part of aws-local-stepfunctions' event log entries we count by. */
export interface LocalEvent {
  type: string;
  state?: { type: string };
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

/** Count the history an execution would have, as its local event log goes by. */
export async function countHistory(events: AsyncIterable<LocalEvent>): Promise<number> {
  let count = 0;
  for await (const event of events) count += historyCost(event);
  return count;
}
