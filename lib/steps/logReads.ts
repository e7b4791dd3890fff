import { CorruptEventError, NotFoundError } from "../core/errors.ts";
import type { RunEvent } from "../core/events.ts";
import type { LogFacts, LogView } from "../core/log.ts";
import { factsOf, readLog } from "../core/logReader.ts";
import { fromAnchor, tailBoundary } from "../core/tail.ts";
import { type EventStore, type RunHead, seqOfEntry } from "../ports/eventStore.ts";
import type { StepDeps } from "./deps.ts";

// How steps read a run's log: the whole of it, the view to decide a write on, or its tail. They
// write nothing; lib/steps/appendNext.ts writes.

const notFound = (runId: string) => new NotFoundError(`run ${runId} not found`, { runId });

/**
 * The run's log as stored now (a snapshot that never changes); NotFoundError if the run has no
 * events, or none at seq 1 and no head (the copy of a fork not created yet, lib/steps/forkCopy.ts);
 * CorruptEventError at seq 1 for a run whose `run_started` is gone (it has a head: seq 1 and the
 * head are written together), as readTailChecked says it.
 */
export async function loadRun(
  deps: Pick<StepDeps, "logs" | "store">,
  runId: string,
): Promise<readonly RunEvent[]> {
  const events = await deps.logs.load(runId);
  const first = events[0]?.seq;
  if (first === 1) return events;
  if (first === undefined || (await deps.store.getHead(runId)) === undefined) throw notFound(runId);
  throw startMissing(runId, first);
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
  /** The run's head, when the caller read it already. @default read here */
  head?: RunHead,
): Promise<LogView> {
  const tail = await readTail(deps, runId);
  if (tail.events[0]?.seq !== 1) await assertLogStarts(deps.store, runId);
  // Damage before the tail (a gap, a duplicate) is seen only by a reader of the whole log: an
  // execution, which then rests the run `malformed` (finish.ts). From then on the whole log is
  // read again here, so resume-point says what is wrong and nothing more is written into it,
  // until the log is mended (then the run goes on, and rests as its log says).
  if ((head ?? (await deps.store.getHead(runId)))?.status === "malformed") await assertWholeLog(deps, runId);
  return tail;
}

/** CorruptEventError naming the first problem of the run's whole log, if it has one. */
async function assertWholeLog(deps: Pick<StepDeps, "store" | "logs">, runId: string): Promise<void> {
  const problem = readLog(await loadRun(deps, runId)).problem;
  if (problem) throw new CorruptEventError(runId, problem.seq, problem.message);
}

/** Events without seq 1 and without a head are no run (a fork's copy stopped before its run_started); with a head, a damaged one. */
async function assertLogStarts(store: EventStore, runId: string): Promise<void> {
  const [first] = (await store.readPage(runId, { afterSeq: 0, limit: 1, maxBytes: 1 })).entries;
  const seq = seqOfEntry(first);
  if (seq === 1) return;
  if ((await store.getHead(runId)) === undefined) throw notFound(runId);
  throw startMissing(runId, seq);
}

/** A run (it has a head) whose `run_started` is gone: malformed at seq 1, whoever reads it. */
export const startMissing = (runId: string, first: number | undefined) =>
  new CorruptEventError(
    runId,
    1,
    `its first event (run_started) is missing; ${first === undefined ? "the log is empty" : `the log starts at seq ${first}`}`,
  );

/**
 * The facts of a view of the run's log: a whole log this process holds costs only the events it
 * has not read before (LogCache.factsOf), a tail is read from where it starts.
 */
export const viewFacts = (deps: Pick<StepDeps, "logs">, runId: string, view: LogView): LogFacts =>
  view.start ? factsOf(view) : deps.logs.factsOf(runId, view.events);
