import type { EventsPage } from "./eventPage.ts";
import type { LiveFeed } from "./liveFeed.ts";

/**
 * The longest a long-poll holds its answer: under API Gateway's 30 s and the api function's 29 s
 * (CONTROL_TIMEOUT_SECONDS.api), with time left for the reads around it (a test checks).
 */
export const EVENTS_MAX_WAIT_SECONDS = 20;
/** How often a long-poll re-reads the store when nothing tells it of a new event (the Lambda). */
export const POLL_INTERVAL_MS = 250;
/**
 * How often a follower with a live feed re-reads the store all the same: the feed hears this
 * process's appends only, and another process may execute the run. One read of the log after the
 * last event seen, empty while nothing is new.
 */
export const STORE_POLL_MS = 1_000;

export interface PageWait {
  runId: string;
  /** The page's `after`: an event with a greater seq ends the wait. */
  after: number;
  /** How long to hold an empty answer, 0 to EVENTS_MAX_WAIT_SECONDS * 1000. */
  waitMs: number;
  /** Told of this process's appends: the wait ends on the next one instead of polling. */
  feed?: LiveFeed | undefined;
  /** The caller went away: stop waiting, leave no timer or subscription. */
  signal?: AbortSignal | undefined;
  /** @default POLL_INTERVAL_MS */
  pollMs?: number;
}

/**
 * `read()`'s page, held while it is empty: it returns as soon as a read finds events, else the
 * empty page at the end of the wait. With a feed it reads again when an event after `after` is
 * appended, and every STORE_POLL_MS for writes of another process; without one, every `pollMs`.
 */
export async function waitForPage(read: () => Promise<EventsPage>, wait: PageWait): Promise<EventsPage> {
  const { feed, signal, waitMs } = wait;
  // Subscribed before the first read, so an append between the read and the wait is not missed.
  const woken = feed ? appendAfter(feed, wait.runId, wait.after) : undefined;
  try {
    let page = await read();
    const endAt = Date.now() + waitMs;
    for (;;) {
      const left = endAt - Date.now();
      if (page.events.length > 0 || left <= 0 || signal?.aborted || woken?.state === "closed") return page;
      // Once woken, the feed has nothing more to say: should that read still be empty, poll. While
      // it listens, the store is read now and then too, for another process's writes.
      const listening = woken?.state === "waiting";
      await sleep(
        Math.min(listening ? STORE_POLL_MS : (wait.pollMs ?? POLL_INTERVAL_MS), left),
        signal,
        listening ? woken?.promise : undefined,
      );
      if (signal?.aborted) return page;
      page = await read();
    }
  } finally {
    woken?.dispose();
  }
}

/** Resolves on the first event after `after` appended to the run, or when the feed closes (the server stops). */
function appendAfter(feed: LiveFeed, runId: string, after: number) {
  let wake!: () => void;
  const woken = {
    state: "waiting" as "waiting" | "appended" | "closed",
    promise: new Promise<void>((resolve) => {
      wake = resolve;
    }),
    dispose: () => {},
  };
  const to = (state: "appended" | "closed") => {
    if (woken.state === "waiting") woken.state = state;
    wake();
  };
  woken.dispose = feed.subscribe(runId, {
    appended: (event) => {
      if (event.seq > after) to("appended");
    },
    closed: () => to("closed"),
  });
  return woken;
}

/** Wait `ms`, or less when the signal aborts or `early` resolves; no timer or listener outlives it. */
function sleep(ms: number, signal: AbortSignal | undefined, early: Promise<void> | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", finish);
      resolve();
    };
    const timer = setTimeout(finish, ms);
    signal?.addEventListener("abort", finish, { once: true });
    early?.then(finish);
  });
}
