import { EventSourceParserStream } from "eventsource-parser/stream";
import type { EventsPage } from "../api/eventPage.ts";
import type { ListedEvent } from "../api/followRun.ts";
import { NotFoundError, RetryableError } from "../core/errors.ts";
import type { ClientError } from "./errors.ts";
import { delayBefore } from "./retry.ts";
import { send, sendJson, type TransportDeps } from "./transport.ts";

/** How to follow a run. */
export interface FollowOptions {
  /** Only events after this seq (0: the whole log). @default 0 */
  after?: number;
  /** Stop following (the iteration then throws the signal's reason). @default none: until the loop breaks */
  signal?: AbortSignal;
  /** The model's text as it streams, between the events it came between (a server with a live feed only). @default ignored */
  onDelta?: (text: string) => void;
  /** How long a long-poll holds an empty answer, in seconds (a server without a live feed). @default 20 */
  waitSeconds?: number;
}

const isLiveUnavailable = (error: unknown) =>
  error instanceof NotFoundError && (error as ClientError).response?.code === "live_unavailable";

/** A dropped connection, a stream cut off or a 5xx: following goes on from the last seq it saw. */
const transient = (error: unknown) => error instanceof RetryableError || error instanceof TypeError;

/**
 * Every event of a run after `after`, then each new one as it is appended, each exactly once and in
 * seq order, until the loop breaks or the signal aborts. It reads GET /runs/{id}/live and, when the
 * server closes the stream or the connection drops, connects again with Last-Event-ID set to the
 * last seq it saw (backing off while connections keep failing, giving up after the retry policy's
 * attempts in a row); a server without a live feed (a deployed API) is long-polled instead
 * (GET /runs/{id}/events?after&wait).
 */
export async function* follow(
  deps: TransportDeps,
  runId: string,
  options: FollowOptions = {},
): AsyncGenerator<ListedEvent, void, undefined> {
  const path = `/runs/${encodeURIComponent(runId)}`;
  const stop = new AbortController();
  const { signal: outer } = options;
  const abort = () => stop.abort(outer?.reason);
  outer?.addEventListener("abort", abort, { once: true });
  let last = options.after ?? 0;
  let live = true;
  let failures = 0;
  try {
    for (;;) {
      outer?.throwIfAborted();
      const before = last;
      try {
        if (live) {
          const response = await send(deps, {
            method: "GET",
            path: `${path}/live`,
            query: { after: last },
            headers: { accept: "text/event-stream", "last-event-id": String(last) },
            signal: stop.signal,
          });
          if (!response.body) throw new RetryableError(`GET ${path}/live answered no stream`, { runId });
          const messages = response.body
            .pipeThrough(new TextDecoderStream())
            .pipeThrough(new EventSourceParserStream());
          for await (const message of messages) {
            if (message.event === "appended") {
              const event = JSON.parse(message.data) as ListedEvent;
              if (event.seq <= last) continue;
              last = event.seq;
              yield event;
            } else if (message.event === "delta") {
              options.onDelta?.((JSON.parse(message.data) as { text: string }).text);
            } else if (message.event === "error") {
              // The server failed mid-stream (hono says so, then ends it): connect again from `last`.
              break;
            }
          }
        } else {
          const { body } = await sendJson<EventsPage>(deps, {
            method: "GET",
            path: `${path}/events`,
            query: { after: last, wait: options.waitSeconds ?? 20 },
            signal: stop.signal,
          });
          for (const event of body.events) {
            if (event.seq <= last) continue;
            last = event.seq;
            yield event;
          }
          // An empty answer at the end of a wait is the ordinary case: ask again at once.
          continue;
        }
      } catch (error) {
        if (stop.signal.aborted) throw outer?.reason ?? error;
        if (live && isLiveUnavailable(error)) {
          live = false;
          continue;
        }
        if (!transient(error)) throw error;
        if (last > before) failures = 0;
        failures++;
        const wait =
          failures < deps.retry.attempts ? delayBefore(failures - 1, deps.retry, undefined) : undefined;
        if (wait === undefined) throw error;
        await deps.retry.sleep(wait, stop.signal);
        continue;
      }
      // The server closed the stream: connect again at once if it had sent something, else back off.
      if (last > before) failures = 0;
      else {
        failures++;
        if (failures >= deps.retry.attempts) {
          throw new RetryableError(
            `GET ${path}/live: the server closed the stream ${failures} times in a row`,
            {
              runId,
            },
          );
        }
        await deps.retry.sleep(delayBefore(failures - 1, deps.retry, undefined) ?? 0, stop.signal);
      }
    }
  } finally {
    outer?.removeEventListener("abort", abort);
    // The loop broke or failed: let go of the connection.
    stop.abort();
  }
}
