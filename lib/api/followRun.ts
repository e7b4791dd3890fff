import type { RunEvent } from "../core/events.ts";
import type { EventsPage, TruncatedEvent } from "./eventPage.ts";
import type { LiveFeed } from "./liveFeed.ts";

/** An event as a page lists it: whole, or truncated when its JSON is more than a page holds. */
export type ListedEvent = RunEvent | TruncatedEvent;

/** Where followRun reads and hears a run. */
export interface FollowSource {
  feed: LiveFeed;
  /** The page of stored events after `after` (Runlog.eventPage). */
  page(after: number): Promise<EventsPage>;
  /** An event heard live, as a page would list it. */
  listed(event: RunEvent): ListedEvent;
}

/** Where followRun sends what it reads and hears, one call at a time, in order. */
export interface FollowSink {
  event(event: ListedEvent): Promise<void>;
  delta(text: string): Promise<void>;
  /** Nothing to say: a keep-alive. */
  ping(): Promise<void>;
}

export interface Following {
  /** Resolves when the feed closes or stop() is called; rejects with what failed (a store read, a write). */
  done: Promise<void>;
  /** Read the store for events this process did not hear (another process's writes), then ping the sink. */
  ping(): void;
  /**
   * Read the store for events this process did not hear (another process's writes): only those
   * after the last one sent. A read already waiting its turn is not asked for twice, so a caller
   * may ask often (STORE_POLL_MS) however slow the store answers.
   */
  refresh(): void;
  /** Stop following: unsubscribe now. */
  stop(): void;
}

/**
 * Every event of a run after `after`, then each new one, each exactly once and in seq order: it
 * subscribes before reading the backlog, skips what it already sent, and reads the store to fill
 * any gap (an event written by another process, or reported out of order by parallel writers).
 * Model text deltas are passed on as heard, between the events they came between.
 */
export function followRun(source: FollowSource, runId: string, after: number, sink: FollowSink): Following {
  let last = after;
  let ended = false;
  let settle!: { resolve: () => void; reject: (error: unknown) => void };
  const done = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });
  let queue = Promise.resolve();
  const end = (error?: unknown) => {
    if (ended) return;
    ended = true;
    unsubscribe();
    if (error === undefined) settle.resolve();
    else settle.reject(error);
  };
  // One piece of work at a time, so what is sent keeps its order; the first failure ends it all.
  const run = (work: () => Promise<void>) => {
    queue = queue.then(() => (ended ? undefined : work())).catch(end);
  };
  const send = async (event: ListedEvent) => {
    if (event.seq <= last) return;
    await sink.event(event);
    last = event.seq;
  };
  const catchUp = async () => {
    for (;;) {
      const page = await source.page(last);
      for (const event of page.events) await send(event);
      if (page.next === undefined) return;
    }
  };
  const unsubscribe = source.feed.subscribe(runId, {
    appended: (event) =>
      run(async () => {
        if (event.seq === last + 1) await send(source.listed(event));
        else if (event.seq > last) await catchUp();
      }),
    streamed: (text) => run(() => sink.delta(text)),
    closed: () => run(async () => end()),
  });
  run(catchUp);
  let refreshing = false;
  return {
    done,
    ping: () => {
      run(catchUp);
      run(() => sink.ping());
    },
    refresh: () => {
      if (refreshing) return;
      refreshing = true;
      run(() => {
        refreshing = false;
        return catchUp();
      });
    },
    stop: () => end(),
  };
}
