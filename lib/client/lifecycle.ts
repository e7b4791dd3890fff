import { EventSourceParserStream } from "eventsource-parser/stream";
import { RetryableError } from "../core/errors.ts";
import type { LifecycleEvent } from "../core/lifecycleSchemas.ts";
import { delayBefore } from "./retry.ts";
import { send, type TransportDeps } from "./transport.ts";

/** How to hear the lifecycle events of a `runlog serve`'s runs. */
export interface LifecycleStreamOptions {
  /** Only events after the one with this id (`runId/seq`), as far as the server still keeps them. @default from now on */
  after?: string;
  /** Stop listening (the iteration then throws the signal's reason). @default none: until the loop breaks */
  signal?: AbortSignal;
  /**
   * The server no longer keeps the events after `lastEventId` (it keeps its last 1,000, and none
   * from before it started): those are lost to this stream, read the runs' logs for them. @default ignored
   */
  onMissed?: (lastEventId: string) => void;
}

/** A dropped connection, a stream cut off or a 5xx: listening goes on from the last id it saw. */
const transient = (error: unknown) => error instanceof RetryableError || error instanceof TypeError;

/**
 * The lifecycle events of the runs a `runlog serve` executes (GET /lifecycle), as they happen,
 * across dropped connections: when the stream ends or the connection drops it connects again with
 * Last-Event-ID set to the last id it saw (backing off while connections keep failing, giving up
 * after the retry policy's attempts in a row). A deployed API has none (404 lifecycle_unavailable,
 * thrown as a NotFoundError): on AWS they are on the deployment's EventBridge bus.
 */
export async function* lifecycle(
  deps: TransportDeps,
  options: LifecycleStreamOptions = {},
): AsyncGenerator<LifecycleEvent, void, undefined> {
  const stop = new AbortController();
  const { signal: outer } = options;
  const abort = () => stop.abort(outer?.reason);
  outer?.addEventListener("abort", abort, { once: true });
  let last = options.after;
  let failures = 0;
  try {
    for (;;) {
      outer?.throwIfAborted();
      let heard = false;
      let cause: unknown;
      try {
        const response = await send(deps, {
          method: "GET",
          path: "/lifecycle",
          headers: { accept: "text/event-stream", ...(last === undefined ? {} : { "last-event-id": last }) },
          signal: stop.signal,
        });
        if (!response.body) throw new RetryableError("GET /lifecycle answered no stream");
        const messages = response.body
          .pipeThrough(new TextDecoderStream())
          .pipeThrough(new EventSourceParserStream());
        for await (const message of messages) {
          heard = true;
          if (message.event === "missed") {
            options.onMissed?.((JSON.parse(message.data) as { lastEventId: string }).lastEventId);
          } else if (message.event?.startsWith("runlog.")) {
            const event = JSON.parse(message.data) as LifecycleEvent;
            last = event.id;
            yield event;
          } else if (message.event === "error") {
            break;
          }
        }
      } catch (error) {
        if (stop.signal.aborted) throw outer?.reason ?? error;
        if (!transient(error)) throw error;
        cause = error;
      }
      // The stream ended or the connection dropped: connect again at once if it had said something, else back off.
      failures = heard ? 0 : failures + 1;
      if (failures === 0) continue;
      const wait =
        failures < deps.retry.attempts ? delayBefore(failures - 1, deps.retry, undefined) : undefined;
      if (wait === undefined) {
        throw (
          cause ??
          new RetryableError(`GET /lifecycle: the server closed the stream ${failures} times in a row`)
        );
      }
      await deps.retry.sleep(wait, stop.signal);
    }
  } finally {
    outer?.removeEventListener("abort", abort);
    stop.abort();
  }
}
