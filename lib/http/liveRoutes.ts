import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { EVENTS_MAX_LIMIT, fitPage } from "../api/eventPage.ts";
import { STORE_POLL_MS } from "../api/eventWait.ts";
import { followRun, type ListedEvent } from "../api/followRun.ts";
import type { LiveFeed } from "../api/liveFeed.ts";
import { canonicalJson } from "../core/canonicalJson.ts";
import type { RunEvent } from "../core/events.ts";
import { HttpError } from "./errors.ts";
import { eventListing } from "./eventListing.ts";
import { check, readQuery, runIdParam } from "./request.ts";
import type { RouteDeps, RouteTable } from "./routes.ts";
import { LastEventId, LiveQuery } from "./schemas.ts";

/** How often a live stream says it is still there (proxies and browsers drop a silent connection). */
export const PING_INTERVAL_MS = 15_000;

/**
 * GET /runs/{id}/live: a run's events as Server-Sent Events, its stored events after `after` (or
 * after the Last-Event-ID an EventSource reconnects with) then each new one (`appended`), the model's
 * text as it streams in this process (`delta`), and a `ping` every PING_INTERVAL_MS. Events another
 * process stores (a run it executes) are read from the store every STORE_POLL_MS. Only a server
 * with a live feed pushes; any other answers 404 `live_unavailable` and the client long-polls.
 */
export function liveRoutes(
  { runlogFor }: RouteDeps,
  live: LiveFeed | undefined,
  report: (error: unknown, c: Context) => void,
): RouteTable {
  return {
    "/runs/:id/live": {
      GET: async (c) => {
        if (!live) throw unavailable();
        const runId = runIdParam(c);
        const { after: asked } = readQuery(c, LiveQuery);
        const resumedAt = c.req.header("last-event-id");
        const after = resumedAt === undefined ? (asked ?? 0) : check(LastEventId, resumedAt, "Last-Event-ID");
        const listing = eventListing(runId, c.req.path.replace(/\/live$/, "/events"));
        // Before the stream starts, so an unknown run is a 404 like any other, not an empty stream.
        await runlogFor(c).eventPage(runId, { ...listing, after, limit: 1 });
        const source = {
          feed: live,
          page: (from: number) =>
            runlogFor(c).eventPage(runId, { ...listing, after: from, limit: EVENTS_MAX_LIMIT }),
          listed: (event: RunEvent) =>
            fitPage([{ event: asStored(event) }], false, listing).events[0] as ListedEvent,
        };
        return streamSSE(
          c,
          async (stream) => {
            const following = followRun(source, runId, after, {
              event: (event) =>
                stream.writeSSE({ event: "appended", id: String(event.seq), data: JSON.stringify(event) }),
              delta: (text) => stream.writeSSE({ event: "delta", data: JSON.stringify({ text }) }),
              ping: () => stream.writeSSE({ event: "ping", data: "{}" }),
            });
            const pings = setInterval(() => following.ping(), PING_INTERVAL_MS);
            // Another process's writes (a run it executes) reach no feed here: read the log's tail.
            const reads = setInterval(() => following.refresh(), STORE_POLL_MS);
            stream.onAbort(() => following.stop());
            try {
              await following.done;
            } finally {
              clearInterval(pings);
              clearInterval(reads);
              following.stop();
            }
          },
          // A store failure mid-stream: reported as the app reports its failures; the stream then
          // ends (hono sends an `error` event first) and an EventSource reconnects from its last id.
          async (error) => report(error, c),
        );
      },
    },
  };
}

/**
 * The event as a store gives it back: every store writes an event's canonical JSON and returns it
 * parsed (its keys sorted), so the pushed JSON is a page's, byte for byte.
 */
const asStored = (event: RunEvent): RunEvent => JSON.parse(canonicalJson(event)) as RunEvent;

function unavailable(): HttpError {
  return new HttpError(
    404,
    "live_unavailable",
    "this server does not push a run's events (no live feed): long-poll GET /runs/{id}/events?after=SEQ&wait=20 instead",
  );
}
