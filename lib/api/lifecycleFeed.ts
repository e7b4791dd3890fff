import type { LifecycleEvent } from "../core/lifecycleSchemas.ts";

/** How many lifecycle events a feed keeps for streams that reconnect. */
export const LIFECYCLE_KEPT = 1000;

/** What a subscriber to the feed hears. Called synchronously by `tell`: must not throw. */
export interface LifecycleSubscriber {
  told(event: LifecycleEvent): void;
  /** The feed closed (the server is stopping): no more calls. */
  closed?(): void;
}

/** What a stream that reconnects gets first: the kept events after its last, or all kept ones when its last is gone. */
export interface LifecycleReplay {
  events: LifecycleEvent[];
  /** The id asked for is no longer kept (or never was here): events between it and `events` are lost to this feed. */
  missed: boolean;
}

/**
 * This process's lifecycle events as they are told (`openLocal({ onLifecycle: feed.tell })`),
 * kept in memory, the last LIFECYCLE_KEPT of them, so a dashboard's stream (GET /lifecycle) that
 * reconnects with the id of the last one it had gets what it missed. Nothing is stored: after a
 * restart the log is the record (GET /runs/{id}/events).
 */
export class LifecycleFeed {
  private readonly events: LifecycleEvent[] = [];
  private readonly subscribers = new Set<LifecycleSubscriber>();
  private isClosed = false;

  constructor(private readonly kept: number = LIFECYCLE_KEPT) {
    if (!Number.isInteger(kept) || kept < 1) {
      throw new RangeError(`kept: a whole number of events from 1, got ${kept}`);
    }
  }

  /** The listener to give openLocal's `onLifecycle`: keeps the event and tells every subscriber. */
  readonly tell = (event: LifecycleEvent): void => {
    this.events.push(event);
    if (this.events.length > this.kept) this.events.shift();
    for (const subscriber of [...this.subscribers]) subscriber.told(event);
  };

  /** The kept events after the one with id `lastId`; none without an id (a new stream starts from now). */
  since(lastId: string | undefined): LifecycleReplay {
    if (lastId === undefined) return { events: [], missed: false };
    const at = this.events.findLastIndex((event) => event.id === lastId);
    if (at < 0) return { events: [...this.events], missed: true };
    return { events: this.events.slice(at + 1), missed: false };
  }

  /**
   * Replay what came after `lastId` and listen to what comes next, with nothing lost or repeated in
   * between (both happen in this one synchronous call); listening ends when the returned function is called.
   */
  follow(
    lastId: string | undefined,
    subscriber: LifecycleSubscriber,
  ): { replay: LifecycleReplay; stop: () => void } {
    const replay = this.since(lastId);
    if (this.isClosed) {
      subscriber.closed?.();
      return { replay, stop: () => {} };
    }
    this.subscribers.add(subscriber);
    return { replay, stop: () => this.subscribers.delete(subscriber) };
  }

  /** How many streams listen (0 once every one has left). */
  listening(): number {
    return this.subscribers.size;
  }

  /** End every subscription: a server stopping ends its streams now. */
  close(): void {
    this.isClosed = true;
    const subscribers = [...this.subscribers];
    this.subscribers.clear();
    for (const subscriber of subscribers) subscriber.closed?.();
  }
}
