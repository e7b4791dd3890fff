import type { RunEvent, RunStarted } from "../core/events.ts";
import { type LifecycleEvent, lifecycleOf, mayAnnounce } from "../core/lifecycle.ts";
import type { EventStore } from "../ports/eventStore.ts";
import { firstEvent, optionsFor } from "../steps/publishLifecycle.ts";

/** Told each lifecycle event of this process's writes, after the write committed. */
export type LifecycleListener = (event: LifecycleEvent) => void | Promise<void>;

/** Run starts remembered per store (agent, owner, metadata); a forgotten one is read again. */
const REMEMBERED_STARTS = 1000;

/**
 * The store, telling `listener` the lifecycle events (lib/core/lifecycle.ts, the one derivation
 * the AWS publisher uses too) each committed write implies: after the commit, so nothing is told
 * of a write that failed or lost its seq race, and awaited by the writer, so a run that returns
 * has told everything it wrote. A run's events are told in seq order, each once. What the
 * listener throws does not undo or fail the write (it is committed): it goes to `onError`.
 */
export function tellingLifecycle(
  store: EventStore,
  listener: LifecycleListener,
  onError: (runId: string, error: unknown) => void,
): EventStore {
  const starts = new Map<string, RunStarted>();
  const told = new Map<string, Promise<number>>();
  const startOf = async (runId: string): Promise<RunStarted | undefined> => {
    const known = starts.get(runId);
    if (known) return known;
    // Seq 1 is not a run_started yet in a fork being copied (its run_started and head are written
    // last). Never ask for the head here: a store rebuilds a missing head from the log it finds,
    // which would give the fork a head without its agent, owner and parent before createRun.
    const first = await firstEvent(store, runId);
    if (first) remember(first);
    return first;
  };
  const remember = (first: RunStarted) => {
    if (starts.size >= REMEMBERED_STARTS) starts.delete(starts.keys().next().value as string);
    starts.set(first.runId, first);
  };
  const tell = async (runId: string, event: RunEvent, lastTold: number): Promise<number> => {
    // Per run, in the order written (a seq already told, by a retry of the same write, is not told
    // again). A fork's start comes after its copy: it is told once, when the run is created.
    const first = event.type === "run_started";
    if ((event.seq <= lastTold && !first) || !mayAnnounce(event)) return Math.max(lastTold, event.seq);
    // Events written before the run's start exist only in a fork being made: its copy and the
    // `resumed` that opens it, which imply nothing (the fork's RunStarted says it).
    const start = event.type === "run_started" ? event : await startOf(runId);
    if (start) {
      for (const lifecycle of lifecycleOf(event, start, await optionsFor(store, runId, event))) {
        try {
          await listener(lifecycle);
        } catch (error) {
          onError(runId, error);
        }
      }
    }
    return Math.max(lastTold, event.seq);
  };
  const committed = (runId: string, event: RunEvent): Promise<void> => {
    const previous = told.get(runId) ?? Promise.resolve(0);
    const next = previous.then((lastTold) =>
      tell(runId, event, lastTold).catch((error: unknown) => {
        onError(runId, error);
        return Math.max(lastTold, event.seq);
      }),
    );
    told.set(runId, next);
    return next.then(() => undefined);
  };
  const createRun: EventStore["createRun"] = async (first, lease) => {
    const result = await store.createRun(first, lease);
    if (result.created) {
      remember(first);
      await committed(first.runId, first);
    }
    return result;
  };
  const append: EventStore["append"] = async (runId, event) => {
    await store.append(runId, event);
    await committed(runId, event);
  };
  return new Proxy(store, {
    get: (target, key) => {
      if (key === "createRun") return createRun;
      if (key === "append") return append;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
