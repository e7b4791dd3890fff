import { ConflictError, RunCancelledError, StaleError } from "../core/errors.ts";
import type { NewEvent, RunEvent } from "../core/events.ts";
import type { LogFacts, LogView } from "../core/log.ts";
import { stamp } from "../core/storedEvents.ts";
import type { StepDeps } from "./deps.ts";

/** What a writer decided on a view of the log: append this event, or the work is already there. */
export type Decision<T> = { append: NewEvent; result: (event: RunEvent) => T } | { done: T };

/** What carrying out a decision came to. */
export type Appended<T> =
  /** Nothing to write: the decision's answer. */
  | { kind: "done"; value: T }
  /** `event` was appended, and `value` is the decision's result of it. */
  | { kind: "appended"; event: RunEvent; value: T }
  /** Another writer took `seq` first: the view was stale; read again and decide again. */
  | { kind: "lost"; seq: number; error: ConflictError };

/**
 * Carry out a decision taken on `view` (whose facts are `facts`): append its event at the view's
 * last seq + 1, conditionally, so of two writers of one seq exactly one wins. The event carries the
 * generation in force (a `resumed` its own). Appended events go into the cache and to the observer.
 */
export async function appendNext<T>(
  deps: StepDeps,
  runId: string,
  view: LogView,
  facts: LogFacts,
  decision: Decision<T>,
): Promise<Appended<T>> {
  if ("done" in decision) return { kind: "done", value: decision.done };
  const append = decision.append;
  const last = view.events.at(-1)?.seq ?? 0;
  const generation = append.type === "resumed" ? append.generation : facts.generation;
  const event = stamp(append, last + 1, deps.clock.now(), generation);
  try {
    await deps.store.append(runId, event);
  } catch (error) {
    if (error instanceof ConflictError) return { kind: "lost", seq: event.seq, error };
    throw error;
  }
  deps.logs.appended(runId, event);
  deps.observer?.appended(runId, event);
  return { kind: "appended", event, value: decision.result(event) };
}

/** Stop a writer of an older generation (a newer one owns the run) or of a cancelled run. */
export function assertCurrent(runId: string, facts: LogFacts, generation: number): void {
  if (facts.cancelled) {
    throw new RunCancelledError(`run ${runId} was cancelled by ${facts.cancelled.by}`, {
      runId,
      seq: facts.cancelled.seq,
      generation,
    });
  }
  if (facts.generation > generation) {
    throw new StaleError(
      `run ${runId} is owned by generation ${facts.generation}; this step is of ${generation}`,
      {
        runId,
        generation: facts.generation,
      },
    );
  }
}

/**
 * Stop a step of a generation whose execution was stopped outside runlog (a Lambda still under
 * way when the console stopped its execution): it writes nothing more. The `resumed` event that
 * opens the next generation is what ends the stop, so it alone may still be written.
 */
export function assertNotStopped(runId: string, facts: LogFacts, generation: number): void {
  if (facts.stopped?.generation !== generation) return;
  throw new StaleError(`run ${runId}: the execution of generation ${generation} was stopped outside runlog`, {
    runId,
    generation,
  });
}
