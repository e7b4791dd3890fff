import { CorruptEventError, NotFoundError } from "../core/errors.ts";
import type { RunEvent } from "../core/events.ts";
import type { LogFacts, LogView } from "../core/log.ts";
import { factsOf } from "../core/logReader.ts";
import { fromAnchor, tailBoundary } from "../core/tail.ts";
import type { EventStore } from "../ports/eventStore.ts";
import type { StepDeps } from "./deps.ts";

// How steps read a run's log: the whole of it, the view to decide a write on, or its tail. They
// write nothing; lib/steps/appendNext.ts writes.

const notFound = (runId: string) => new NotFoundError(`run ${runId} not found`, { runId });

/**
 * The run's log as stored now (a snapshot that never changes); NotFoundError if the run has no
 * events, or none at seq 1 (the copy of a fork not created yet, lib/steps/forkCopy.ts).
 */
export async function loadRun(deps: Pick<StepDeps, "logs">, runId: string): Promise<readonly RunEvent[]> {
  const events = await deps.logs.load(runId);
  if (events[0]?.seq !== 1) throw notFound(runId);
  return events;
}

/**
 * The run's log to decide a write on: the cached one where the cache is trusted as the tail
 * (a machine's own orchestrator), else as stored now. A stale view costs nothing but a lost
 * seq race, because every append is conditional.
 */
export async function currentRun(deps: StepDeps, runId: string): Promise<readonly RunEvent[]> {
  const events = await deps.logs.current(runId);
  if (events.length === 0) throw notFound(runId);
  return events;
}

/**
 * The end of a run's log, enough to say where it stands: the cached log when this process holds
 * it (reading only what is new), else a backwards read to the last anchor. The head and this are
 * all that resume-point and resume read, however long the run is.
 */
export async function readTail(deps: Pick<StepDeps, "store" | "logs">, runId: string): Promise<LogView> {
  if (deps.logs.has(runId)) return { events: await loadRun(deps, runId) };
  const tail = await deps.store.readBack(runId, tailBoundary());
  if (tail.length === 0) throw notFound(runId);
  return tail[0]!.seq === 1 ? { events: tail } : fromAnchor(tail);
}

/**
 * readTail for a request that writes to the run or says where it stands (a resume, resume-point):
 * a tail that does not reach seq 1 has not seen the log's start, so one short read checks it is
 * there. A log whose `run_started` is gone is malformed (CorruptEventError at seq 1), never
 * continued. The steps of an execution read the tail alone: their run was checked when it opened.
 */
export async function readTailChecked(
  deps: Pick<StepDeps, "store" | "logs">,
  runId: string,
): Promise<LogView> {
  const tail = await readTail(deps, runId);
  if (tail.events[0]?.seq !== 1) await assertLogStarts(deps.store, runId);
  return tail;
}

/** Events without seq 1 and without a head are no run (a fork's copy stopped before its run_started); with a head, a damaged one. */
async function assertLogStarts(store: EventStore, runId: string): Promise<void> {
  const [first] = (await store.readPage(runId, { afterSeq: 0, limit: 1, maxBytes: 1 })).entries;
  const seq = first === undefined ? undefined : "event" in first ? first.event.seq : first.summary.seq;
  if (seq === 1) return;
  if ((await store.getHead(runId)) === undefined) throw notFound(runId);
  throw new CorruptEventError(
    runId,
    1,
    `its first event (run_started) is missing; the log starts at seq ${seq}`,
  );
}

/**
 * The facts of a view of the run's log: a whole log this process holds costs only the events it
 * has not read before (LogCache.factsOf), a tail is read from where it starts.
 */
export const viewFacts = (deps: Pick<StepDeps, "logs">, runId: string, view: LogView): LogFacts =>
  view.start ? factsOf(view) : deps.logs.factsOf(runId, view.events);
