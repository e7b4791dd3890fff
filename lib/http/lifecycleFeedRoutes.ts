import { streamSSE } from "hono/streaming";
import type { LifecycleFeed } from "../api/lifecycleFeed.ts";
import type { LifecycleEvent } from "../core/lifecycleSchemas.ts";
import { mayAccess } from "../core/principal.ts";
import { HttpError } from "./errors.ts";
import { PING_INTERVAL_MS } from "./liveRoutes.ts";
import { check, readQuery } from "./request.ts";
import type { RouteDeps, RouteTable } from "./routes.ts";
import { LifecycleId, LifecycleQuery } from "./schemas.ts";

/** One Server-Sent Event as written. */
interface Message {
  event: string;
  id?: string;
  data: string;
}

/**
 * GET /lifecycle: the lifecycle events of the runs this process executes (what `onLifecycle` is
 * told) as Server-Sent Events, for dashboards: `id` the event's id (`runId/seq`), `event` its
 * detail-type, `data` its detail. A stream that reconnects with Last-Event-ID (or `?after=ID`) gets
 * the kept events after that one, or a `missed` event and every kept one when that id is no longer
 * kept; a new stream starts from now. A scoped caller hears only its own runs' events (an admin
 * every run's), and a `ping` comes every PING_INTERVAL_MS. A server with no runs of its own (a
 * deployed API) answers 404 `lifecycle_unavailable`: on AWS the events are on the bus.
 */
export function lifecycleFeedRoutes({ runlogFor }: RouteDeps, feed: LifecycleFeed | undefined): RouteTable {
  return {
    "/lifecycle": {
      GET: async (c) => {
        if (!feed) throw unavailable();
        const { after } = readQuery(c, LifecycleQuery);
        const header = c.req.header("last-event-id");
        const lastId = header === undefined ? after : check(LifecycleId, header, "Last-Event-ID");
        const principal = runlogFor(c).principal;
        const visible = (event: LifecycleEvent) =>
          principal === undefined || mayAccess(principal, event.owner);
        return streamSSE(c, (stream) => {
          // The feed tells synchronously and a write is asynchronous: one queue keeps their order.
          const queue: Message[] = [];
          let ended = false;
          let wake: (() => void) | undefined;
          const push = (message: Message) => {
            queue.push(message);
            wake?.();
          };
          const end = () => {
            ended = true;
            wake?.();
          };
          const { replay, stop } = feed.follow(lastId, {
            told: (event) => {
              if (visible(event)) push(asMessage(event));
            },
            closed: end,
          });
          if (replay.missed) push(missed(lastId ?? ""));
          for (const event of replay.events) if (visible(event)) push(asMessage(event));
          const pings = setInterval(() => push({ event: "ping", data: "{}" }), PING_INTERVAL_MS);
          stream.onAbort(end);
          return (async () => {
            try {
              for (;;) {
                // Ended (the client left, the server stops): what is still queued has no one to read it.
                if (ended) return;
                const message = queue.shift();
                if (message) await stream.writeSSE(message);
                else
                  await new Promise<void>((resolve) => {
                    wake = resolve;
                  });
              }
            } finally {
              clearInterval(pings);
              stop();
            }
          })();
        });
      },
    },
  };
}

const asMessage = (event: LifecycleEvent): Message => ({
  event: event.type,
  id: event.id,
  data: JSON.stringify(event),
});

function missed(lastEventId: string): Message {
  return {
    event: "missed",
    data: JSON.stringify({
      lastEventId,
      message:
        "the events after this id are no longer kept in memory: the kept ones follow; read a run's log (GET /runs/{id}/events) for the rest",
    }),
  };
}

function unavailable(): HttpError {
  return new HttpError(
    404,
    "lifecycle_unavailable",
    "this server executes no runs of its own, so it has no lifecycle events to stream: on AWS they are " +
      "published on the deployment's EventBridge bus (source runlog, detail-types runlog.RunStarted, " +
      "runlog.RunCompleted …); subscribe with a rule (docs/guides/react-to-a-run.md)",
  );
}
