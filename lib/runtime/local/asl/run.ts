import { HISTORY_COST, type HistoryCount } from "./history.ts";
import type { State } from "./machine.ts";
import type { Context } from "./paths.ts";

/** A Task's local handler: the state's input (after Parameters) in, its result out; it must not mutate its input. */
export type Handler = (input: unknown) => Promise<unknown>;

export interface RunOptions {
  /** A handler for every name the machine's Resources map to. */
  handlers: Readonly<Record<string, Handler>>;
  /** What `$$` holds (within an ItemSelector, with `Map.Item` added). @default {} */
  context?: Context | undefined;
  /** Replaces every Retry interval, in ms, without jitter. @default each retrier's own backoff */
  retryIntervalMs?: number | undefined;
}

/** Thrown inside a stopped scope (a failed Map's other iterations, a timed-out execution): nobody waits for it. */
export const STOPPED = new Error("stopped");

/** What a failure stops: an execution, or one attempt of a Map's iterations (a child of the Map's scope). */
export class Scope {
  aborted = false;
  constructor(private readonly parent: Scope | undefined) {}
  get stopped(): boolean {
    return this.aborted || (this.parent?.stopped ?? false);
  }
  child(): Scope {
    return new Scope(this);
  }
}

interface Sleeper {
  scope: Scope;
  timer: NodeJS.Timeout;
  wake: () => void;
}

export class Run {
  readonly history: HistoryCount = { events: 0, tasks: {} };
  ended = false;
  private readonly sleepers = new Set<Sleeper>();
  constructor(readonly options: RunOptions) {}

  count(scope: Scope, events: number): void {
    if (!this.ended && !scope.stopped) this.history.events += events;
  }

  enter(scope: Scope, state: State): void {
    if (this.ended || scope.stopped) return;
    if (state.type === "Task") {
      this.history.events += HISTORY_COST.enter.Task;
      this.history.tasks[state.name] = (this.history.tasks[state.name] ?? 0) + 1;
    } else this.history.events += state.type === "Map" ? HISTORY_COST.enter.Map : HISTORY_COST.enter.other;
  }

  /** Wait before a retry; woken at once when its scope stops. */
  sleep(ms: number, scope: Scope): Promise<void> {
    return new Promise((resolve) => {
      const sleeper: Sleeper = {
        scope,
        wake: resolve,
        timer: setTimeout(() => {
          this.sleepers.delete(sleeper);
          resolve();
        }, ms),
      };
      this.sleepers.add(sleeper);
    });
  }

  stop(scope: Scope): void {
    scope.aborted = true;
    for (const sleeper of this.sleepers)
      if (sleeper.scope.stopped) {
        clearTimeout(sleeper.timer);
        this.sleepers.delete(sleeper);
        sleeper.wake();
      }
  }
}
