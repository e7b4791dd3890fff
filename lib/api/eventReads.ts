import { InvalidInputError, NotFoundError } from "../core/errors.ts";
import type { RunEvent } from "../core/events.ts";
import { validateRunId } from "../core/ids.ts";
import { type EventStore, MAX_EVENT_BYTES } from "../ports/eventStore.ts";
import { type EventPageRequest, type EventsPage, eventsLimit, fitPage, PAGE_MIN_BYTES } from "./eventPage.ts";

const wholeNumber = (name: string, value: number, min: number) => {
  if (!Number.isInteger(value) || value < min) {
    throw new InvalidInputError(`${name}: expected an integer >= ${min}, got ${value}`, { field: name });
  }
  return value;
};

/**
 * NotFoundError when a read of the run's events after `afterSeq` found none and the run does not
 * exist: a run has at least its first event, and a read past the end of one that exists is empty, not missing.
 */
export async function assertRunFound(
  store: EventStore,
  runId: string,
  afterSeq: number,
  found: number,
): Promise<void> {
  if (found === 0 && (afterSeq === 0 || !(await store.getHead(runId)))) {
    throw new NotFoundError(`run ${runId} not found`, { runId });
  }
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
  await assertRunFound(store, runId, afterSeq, page.entries.length);
  return fitPage(page.entries, page.more, request);
}

/** One event of a run, whole whatever its size; NotFoundError names the run or the seq it lacks. */
export async function readOneEvent(store: EventStore, runId: string, seq: number): Promise<RunEvent> {
  validateRunId(runId);
  wholeNumber("seq", seq, 1);
  // An event is at most MAX_EVENT_BYTES stored, so this page holds it whole, and only it.
  const page = await store.readPage(runId, { afterSeq: seq - 1, limit: 1, maxBytes: MAX_EVENT_BYTES });
  const entry = page.entries[0];
  if (entry && "event" in entry && entry.event.seq === seq) return entry.event;
  if (!(await store.getHead(runId))) throw new NotFoundError(`run ${runId} not found`, { runId });
  throw new NotFoundError(`run ${runId} has no event at seq ${seq}`, { runId, seq });
}
