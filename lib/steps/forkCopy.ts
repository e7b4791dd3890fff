import { canonicalJson } from "../core/canonicalJson.ts";
import { forEachConcurrently } from "../core/concurrency.ts";
import { ConflictError, IdTakenError } from "../core/errors.ts";
import type { RunEvent, RunStarted } from "../core/events.ts";
import { assertSameStart } from "../core/sameStart.ts";
import type { EventStore } from "../ports/eventStore.ts";

/** Parallel conditional puts while copying; each seq is still written at most once. */
const COPY_CONCURRENCY = 16;

/**
 * Copy the parent's events into the fork. A retried fork finds what its first attempt copied:
 * the same events stay (read back, their keys may come in another order, hence the canonical
 * form), anything else there means the fork id belongs to another run, and nothing is written
 * into it: its first event is checked before anything is copied.
 */
export async function copyEvents(
  store: EventStore,
  first: RunStarted,
  events: readonly RunEvent[],
): Promise<void> {
  const forkId = first.runId;
  const copied = new Map((await store.read(forkId)).map((event) => [event.seq, event]));
  // The fork's own opening `resumed` (the last event) is written anew by each attempt: its time differs.
  const timeless = (event: RunEvent) => (event.type === "resumed" ? { ...event, at: "" } : event);
  const same = (event: RunEvent, stored: RunEvent | undefined) =>
    stored !== undefined && canonicalJson(timeless(stored)) === canonicalJson(timeless(event));
  if (copied.has(1)) assertSameStart(first, copied.get(1), "fork id");
  const taken = (seq: number, options?: { cause?: unknown }) => {
    const why = `its event at seq ${seq} differs from run ${first.parent?.runId}'s`;
    return new IdTakenError(forkId, [why], `fork id ${forkId} is taken by a different run (${why})`, options);
  };
  for (const event of events) {
    const stored = copied.get(event.seq);
    if (stored && !same(event, stored)) throw taken(event.seq);
  }
  const missing = events.filter((event) => !copied.has(event.seq));
  // A fork that exists was whole before its run_started was written (the copy and its opening come
  // first): one it lacks an event of is another fork under this id (an identical copy, say, now
  // asked to go on with input), never this request's to extend.
  if (copied.has(1) && missing.length > 0) {
    const why = `it is a fork of run ${first.parent?.runId} that does not hold this request's event at seq ${missing[0]!.seq}`;
    throw new IdTakenError(forkId, [why], `fork id ${forkId} is taken by a different run (${why})`);
  }
  await forEachConcurrently(missing, COPY_CONCURRENCY, async (event) => {
    try {
      await store.append(forkId, event);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      // A second fork with this id, at the same moment: the same copy is fine, another is not.
      const [stored] = await store.read(forkId, event.seq - 1);
      if (!same(event, stored)) throw taken(event.seq, { cause: error });
    }
  });
}

/**
 * Refuse to start a run under an id with no head (getHead rebuilds a lost one from its seq 1) that
 * holds the copy of a fork not created yet: events without seq 1, left by a fork stopped between
 * its copy and its `run_started`. A new run's seq 1 would head the parent's copied events (and
 * resume from them). Retrying the fork completes it. A new id has no events.
 */
export async function assertNoForkCopy(store: EventStore, runId: string): Promise<void> {
  const [first] = await store.read(runId);
  if (first === undefined) return;
  const why = `it holds the copy of a fork that was stopped before it was created (seq ${first.seq} on, no run_started)`;
  throw new IdTakenError(
    runId,
    [why],
    `run id ${runId} is taken: ${why}; retry that fork to complete it, or start the run under another id`,
    { runId },
  );
}
