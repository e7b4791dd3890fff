import { ConflictError, NotFoundError, RunCancelledError, StaleError } from "../core/errors.ts";
import { type NewEvent, type RunEvent, stamp } from "../core/events.ts";
import { type LogFacts, readLog } from "../core/log.ts";
import type { StepDeps } from "./deps.ts";

/** What a writer decided after reading the log: append this event, or the work is already there. */
export type Decision<T> = { append: NewEvent; result: (event: RunEvent) => T } | { done: T };

/** How often a writer tries again after losing a seq race while the log shows no new event. */
const MAX_STALLED_CONFLICTS = 32;

/** The run's log; NotFoundError if the run has no events. */
export async function loadRun(deps: StepDeps, runId: string): Promise<RunEvent[]> {
  const events = await deps.logs.load(runId);
  if (events.length === 0) throw new NotFoundError(`run ${runId} not found`);
  return events;
}

/** Stop a writer of an older generation (a newer one owns the run) or of a cancelled run. */
export function assertCurrent(runId: string, facts: LogFacts, generation: number): void {
  if (facts.cancelled) throw new RunCancelledError(`run ${runId} was cancelled by ${facts.cancelled.by}`);
  if (facts.generation > generation) {
    throw new StaleError(
      `run ${runId} is owned by generation ${facts.generation}; this step is of ${generation}`,
    );
  }
}

/**
 * The one way steps write: read the tail, decide, append at tail+1. Losing the
 * seq race re-reads and decides again, so a writer either converges on what
 * someone else already wrote or stops because a newer generation took over.
 */
export async function writeNext<T>(
  deps: StepDeps,
  runId: string,
  generation: number | "any",
  decide: (events: RunEvent[], facts: LogFacts) => Decision<T>,
): Promise<T> {
  for (let seen = 0, stalled = 0; ; ) {
    const events = await loadRun(deps, runId);
    // Losing the race to a writer whose event then shows up is progress (many siblings finishing
    // at once): try again for as long as the log grows, and only a bounded number of times when not.
    stalled = events.length > seen ? 0 : stalled + 1;
    seen = events.length;
    const facts = readLog(events);
    // "any": writers outside an execution (decisions, cancel) that judge the log themselves.
    if (generation !== "any") assertCurrent(runId, facts, generation);
    const decision = decide(events, facts);
    if ("done" in decision) return decision.done;
    const event = stamp(decision.append, events.length + 1, deps.clock.now());
    try {
      await deps.store.append(runId, event);
    } catch (error) {
      if (error instanceof ConflictError && stalled < MAX_STALLED_CONFLICTS) continue;
      throw error;
    }
    deps.logs.appended(runId, event);
    deps.observer?.appended(runId, event);
    return decision.result(event);
  }
}
