import { continuedText, endsContinuation } from "../core/continuation.ts";
import { errorMessage } from "../core/errors.ts";
import type { RunEvent, RunStarted } from "../core/events.ts";
import { type LifecycleEvent, type LifecycleOptions, lifecycleOf, mayAnnounce } from "../core/lifecycle.ts";
import { type EventStore, MAX_EVENT_BYTES } from "../ports/eventStore.ts";
import type { LifecycleBus } from "../ports/lifecycleBus.ts";

/**
 * The lifecycle options for `event`: a final answer's gets the text of the responses cut at the
 * output limit that it continues, read back from the store (one short read, at a run's end only).
 */
export async function optionsFor(
  store: Pick<EventStore, "readBack">,
  runId: string,
  event: RunEvent,
  options: LifecycleOptions = {},
): Promise<LifecycleOptions> {
  if (!(event.type === "model_response" && event.stop === "stop")) return options;
  const back = await store.readBack(runId, (e) => e.seq < event.seq && endsContinuation(e));
  const before = back.filter((e) => e.seq < event.seq);
  const continued = continuedText(before, before.length);
  return continued === "" ? options : { ...options, continued };
}

/** One committed log event, as a change stream names it, with the id its batch reports it by. */
export interface CommittedKey {
  /** The stream record's id (its sequence number): what a partial batch response names. */
  recordId: string;
  runId: string;
  seq: number;
}

export interface PublishDeps {
  store: EventStore;
  bus: LifecycleBus;
  options?: LifecycleOptions;
}

/** What a batch came to: the record to start again from (and why), or nothing left to do. */
export type PublishResult = { failedFrom?: undefined } | { failedFrom: string; error: string };

/**
 * Publish the lifecycle events of committed log events, named in the order the table's stream
 * gave them (per run, the order they were written): each read back from the store (the stream
 * names, the log holds), turned into lifecycle events by the one derivation (lib/core/lifecycle.ts)
 * and put on the bus in that order. On the first failure it stops and names the record to start
 * again from: it and everything after are sent again, so each event is published at least once
 * and a run's events never out of order (a consumer drops repeats by `id`).
 */
export async function publishLifecycle(
  deps: PublishDeps,
  keys: readonly CommittedKey[],
): Promise<PublishResult> {
  const reads = new Map<string, Promise<Map<number, RunEvent>>>();
  const starts = new Map<string, Promise<RunStarted | undefined>>();
  const eventsOf = (runId: string) => {
    let read = reads.get(runId);
    if (!read) {
      // One read per run per batch, from its first seq here on.
      const first = Math.min(...keys.filter((key) => key.runId === runId).map((key) => key.seq));
      read = deps.store.read(runId, first - 1).then((events) => new Map(events.map((e) => [e.seq, e])));
      reads.set(runId, read);
    }
    return read;
  };
  const startOf = (runId: string) => {
    let start = starts.get(runId);
    if (!start) {
      start = firstEvent(deps.store, runId);
      starts.set(runId, start);
    }
    return start;
  };
  const pending: { recordId: string; event: LifecycleEvent }[] = [];
  for (const key of keys) {
    try {
      const event = (await eventsOf(key.runId)).get(key.seq);
      // Expired and gone (retention), or not an event: nothing to tell.
      if (!event || !mayAnnounce(event)) continue;
      // A fork's copy is written before its start: without one, the event implies nothing.
      const start = event.type === "run_started" ? event : await startOf(key.runId);
      if (!start) continue;
      for (const lifecycle of lifecycleOf(
        event,
        start,
        await optionsFor(deps.store, key.runId, event, deps.options),
      ))
        pending.push({ recordId: key.recordId, event: lifecycle });
    } catch (error) {
      return flush(deps.bus, pending, { recordId: key.recordId, error: errorMessage(error) });
    }
  }
  return flush(deps.bus, pending);
}

/** Put what was derived; the first record not wholly published is where the batch starts again. */
async function flush(
  bus: LifecycleBus,
  pending: readonly { recordId: string; event: LifecycleEvent }[],
  stoppedAt?: { recordId: string; error: string },
): Promise<PublishResult> {
  let outcome: { published: number; error?: string };
  try {
    outcome = await bus.put(pending.map((p) => p.event));
  } catch (error) {
    outcome = { published: 0, error: errorMessage(error) };
  }
  const unpublished = pending[outcome.published];
  if (unpublished) return { failedFrom: unpublished.recordId, error: outcome.error ?? "not published" };
  return stoppedAt ? { failedFrom: stoppedAt.recordId, error: stoppedAt.error } : {};
}

/** The run's `run_started`, or undefined while it has none (a fork being copied). */
export async function firstEvent(store: EventStore, runId: string): Promise<RunStarted | undefined> {
  const page = await store.readPage(runId, { afterSeq: 0, limit: 1, maxBytes: MAX_EVENT_BYTES });
  const entry = page.entries[0];
  return entry && "event" in entry && entry.event.type === "run_started" ? entry.event : undefined;
}
