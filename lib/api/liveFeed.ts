import type { RunEvent } from "../core/events.ts";
import type { Observer } from "../ports/runtime.ts";

/** What a subscriber to one run hears. Called synchronously by the writer: must not throw. */
export interface LiveListener {
  /** An event this process appended to the run (in the order the writers report them: see followRun). */
  appended(event: RunEvent): void;
  /** A piece of a model response's text streaming in (not stored). */
  streamed?(delta: string, generation: number): void;
  /** The feed closed (the server is stopping): no more calls. */
  closed?(): void;
}

/**
 * The runs executing in this process, as they happen: an observer of the runtime (openLocal feeds
 * it) that tells the subscribers of a run each event appended to it and each piece of model text.
 * It only knows what this process writes; followRun reads the store for the rest.
 */
export class LiveFeed implements Observer {
  private readonly runs = new Map<string, Set<LiveListener>>();
  private isClosed = false;

  appended(runId: string, event: RunEvent): void {
    for (const listener of this.listenersOf(runId)) listener.appended(event);
  }

  streamed(runId: string, generation: number, delta: string): void {
    for (const listener of this.listenersOf(runId)) listener.streamed?.(delta, generation);
  }

  /** Listen to one run until the returned function is called (calling it again does nothing). */
  subscribe(runId: string, listener: LiveListener): () => void {
    if (this.isClosed) {
      listener.closed?.();
      return () => {};
    }
    let listeners = this.runs.get(runId);
    if (!listeners) {
      listeners = new Set();
      this.runs.set(runId, listeners);
    }
    listeners.add(listener);
    return () => {
      const current = this.runs.get(runId);
      current?.delete(listener);
      if (current?.size === 0) this.runs.delete(runId);
    };
  }

  /** How many subscribers a run has (0 once every one has left: nothing is kept for a run nobody watches). */
  subscribers(runId: string): number {
    return this.runs.get(runId)?.size ?? 0;
  }

  /** End every subscription (a server stopping: its long-polls answer and its streams end now). */
  close(): void {
    this.isClosed = true;
    const listeners = [...this.runs.values()].flatMap((set) => [...set]);
    this.runs.clear();
    for (const listener of listeners) listener.closed?.();
  }

  // A copy: a listener that unsubscribes while being told does not disturb the iteration.
  private listenersOf(runId: string): LiveListener[] {
    const listeners = this.runs.get(runId);
    return listeners ? [...listeners] : [];
  }
}
