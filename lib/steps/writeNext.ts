import { ConflictError, NotFoundError, RunCancelledError, StaleError } from "../core/errors.ts";
import { type NewEvent, type RunEvent, stamp } from "../core/events.ts";
import { type LogFacts, type LogStart, readLog } from "../core/log.ts";
import { fromAnchor, tailBoundary } from "../core/tail.ts";
import type { StepDeps } from "./deps.ts";

/**
 * What a writer decided after reading the log: append this event, or the work is already there.
 * `result` runs after the append; the events `decide` was given may have grown by then (a log the
 * cache holds grows in place), so a `result` that reads them notes their length in `decide`.
 */
export type Decision<T> = { append: NewEvent; result: (event: RunEvent) => T } | { done: T };

/** A run's log as a step reads it: all of it, or a tail of it from `start` (lib/core/tail.ts). */
export interface LogView {
  events: RunEvent[];
  start?: LogStart;
}

/** How a writer reads the log: `fresh` after losing a seq race, when a cached view is known stale. */
export type ViewReader = (fresh: boolean) => Promise<LogView>;

/** How often a writer tries again after losing a seq race while the log shows no new event. */
const MAX_STALLED_CONFLICTS = 32;

const notFound = (runId: string) => new NotFoundError(`run ${runId} not found`);

/** The run's log as stored now; NotFoundError if the run has no events. */
export async function loadRun(deps: StepDeps, runId: string): Promise<RunEvent[]> {
  const events = await deps.logs.load(runId);
  if (events.length === 0) throw notFound(runId);
  return events;
}

/**
 * The run's log to decide a write on: the cached one where the cache is trusted as the tail
 * (a machine's own orchestrator), else as stored now. A stale view costs nothing but a lost
 * seq race, because every append is conditional.
 */
export async function currentRun(deps: StepDeps, runId: string): Promise<RunEvent[]> {
  const events = await deps.logs.current(runId);
  if (events.length === 0) throw notFound(runId);
  return events;
}

/**
 * The end of a run's log, enough to say where it stands: the cached log when this process holds
 * it (reading only what is new), else a backwards read to the last anchor. The head and this are
 * all that resume-point and resume read, however long the run is.
 */
export async function readTail(deps: StepDeps, runId: string): Promise<LogView> {
  if (deps.logs.has(runId)) return { events: await loadRun(deps, runId) };
  const tail = await deps.store.readBack(runId, tailBoundary());
  if (tail.length === 0) throw notFound(runId);
  return tail[0]!.seq === 1 ? { events: tail } : fromAnchor(tail);
}

/** The facts of a view, read from where it starts. */
export const factsOf = (view: LogView): LogFacts => readLog(view.events, view.start);

/**
 * The facts of a view of the run's log: a whole log this process holds costs only the events it
 * has not read before (LogCache.factsOf), a tail is read from where it starts.
 */
export const viewFacts = (deps: StepDeps, runId: string, view: LogView): LogFacts =>
  view.start ? factsOf(view) : deps.logs.factsOf(runId, view.events);

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
 * `read` gives the view to decide on (default: the whole log, cached where trusted).
 */
export async function writeNext<T>(
  deps: StepDeps,
  runId: string,
  generation: number | "any",
  decide: (events: RunEvent[], facts: LogFacts) => Decision<T>,
  read: ViewReader = async (fresh) => ({
    events: fresh ? await loadRun(deps, runId) : await currentRun(deps, runId),
  }),
): Promise<T> {
  for (let seen = 0, stalled = 0, fresh = false; ; fresh = true) {
    const view = await read(fresh);
    const last = view.events.at(-1)?.seq ?? 0;
    // Losing the race to a writer whose event then shows up is progress (many siblings finishing
    // at once): try again for as long as the log grows, and only a bounded number of times when not.
    stalled = last > seen ? 0 : stalled + 1;
    seen = last;
    const facts = viewFacts(deps, runId, view);
    // "any": writers outside an execution (decisions, cancel) that judge the log themselves.
    if (generation !== "any") assertCurrent(runId, facts, generation);
    const decision = decide(view.events, facts);
    if ("done" in decision) return decision.done;
    const append = decision.append;
    const gen = append.type === "resumed" ? append.generation : facts.generation;
    const event = stamp(append, last + 1, deps.clock.now(), gen);
    try {
      await deps.store.append(runId, event);
    } catch (error) {
      if (error instanceof ConflictError && stalled < MAX_STALLED_CONFLICTS) {
        deps.observer?.lostRace?.(runId, event.seq);
        continue;
      }
      throw error;
    }
    deps.logs.appended(runId, event);
    deps.observer?.appended(runId, event);
    return decision.result(event);
  }
}
