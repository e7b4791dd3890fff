import { InvalidInputError, NotFoundError } from "../core/errors.ts";
import type { RunEvent } from "../core/events.ts";
import { validateRunId } from "../core/ids.ts";
import { type EventStore, MAX_EVENT_BYTES, seqOfEntry } from "../ports/eventStore.ts";
import { startMissing } from "../steps/logReads.ts";
import { type EventPageRequest, type EventsPage, eventsLimit, fitPage, PAGE_MIN_BYTES } from "./eventPage.ts";

const wholeNumber = (name: string, value: number, min: number) => {
  if (!Number.isInteger(value) || value < min) {
    throw new InvalidInputError(`${name}: expected an integer >= ${min}, got ${value}`, { field: name });
  }
  return value;
};

/**
 * NotFoundError when a read of the run's events after `afterSeq` shows no run: it found none and
 * the run does not exist (a read past the end of one that exists is empty, not missing), or, read
 * from the start, it found events without seq 1 and the run has no head. Those are the copy of a
 * fork not created yet (a fork writes its copy before its `run_started`, lib/steps/fork.ts): until
 * then there is no run. With a head, a log without seq 1 is a run whose `run_started` is gone:
 * CorruptEventError at seq 1, as resume-point and fork say it.
 */
export async function assertRunFound(
  store: EventStore,
  runId: string,
  afterSeq: number,
  firstSeq: number | undefined,
): Promise<void> {
  if (afterSeq === 0 ? firstSeq === 1 : firstSeq !== undefined) return;
  if (!(await store.getHead(runId))) throw new NotFoundError(`run ${runId} not found`, { runId });
  if (afterSeq === 0) throw startMissing(runId, firstSeq);
}

/** A page of a run's log within `maxBytes` of JSON (see EventPageRequest); NotFoundError for an unknown run. */
export async function readEventPage(
  store: EventStore,
  runId: string,
  request: EventPageRequest,
): Promise<EventsPage> {
  validateRunId(runId);
  const afterSeq = wholeNumber("after", request.after ?? 0, 0);
  const limit = eventsLimit(request.limit);
  const maxBytes = wholeNumber("maxBytes", request.maxBytes, PAGE_MIN_BYTES);
  // Stored bytes are never more than JSON bytes, so the store's page holds at least what fits.
  const page = await store.readPage(runId, { afterSeq, limit, maxBytes });
  await assertRunFound(store, runId, afterSeq, seqOfEntry(page.entries[0]));
  return fitPage(page.entries, page.more, request);
}

/** One event of a run, whole whatever its size; NotFoundError names the run or the seq it lacks. */
export async function readOneEvent(store: EventStore, runId: string, seq: number): Promise<RunEvent> {
  validateRunId(runId);
  wholeNumber("seq", seq, 1);
  // An event is at most MAX_EVENT_BYTES stored, so this page holds it whole, and only it.
  const page = await store.readPage(runId, { afterSeq: seq - 1, limit: 1, maxBytes: MAX_EVENT_BYTES });
  const entry = page.entries[0];
  // Seq 1 is the run's own; a later one may be the copy of a fork not created yet, which no head names.
  const found = entry && "event" in entry && entry.event.seq === seq ? entry.event : undefined;
  if (found?.seq !== 1 && !(await store.getHead(runId)))
    throw new NotFoundError(`run ${runId} not found`, { runId });
  if (found) return found;
  // Seq 1 of a run that exists is never missing but by damage.
  if (seq === 1) throw startMissing(runId, seqOfEntry(entry));
  throw new NotFoundError(`run ${runId} has no event at seq ${seq}`, { runId, seq });
}
