import type { Context } from "hono";
import { waitForPage } from "../api/eventWait.ts";
import type { LiveFeed } from "../api/liveFeed.ts";
import { jsonBytes } from "../core/utf8.ts";
import { invalidInput } from "./errors.ts";
import { eventListing, partHref } from "./eventListing.ts";
import { eventPart, partCount } from "./eventParts.ts";
import { RESPONSE_MAX_BYTES } from "./limits.ts";
import { check, readQuery, runIdParam } from "./request.ts";
import { optional, type RouteDeps, type RouteTable } from "./routes.ts";
import { EventQuery, EventsQuery, Seq } from "./schemas.ts";

/**
 * A run's log, a page at a time, and one event whole or in parts. No answer is over
 * RESPONSE_MAX_BYTES: a page stops before the event that would pass it, an event too big for
 * any page is listed truncated with the href of its parts. With `wait`, an empty page is held
 * until an event comes (the feed tells of this process's appends; without one, the store is polled).
 */
export function eventRoutes({ runlogFor }: RouteDeps, live?: LiveFeed): RouteTable {
  return {
    "/runs/:id/events": {
      GET: async (c) => {
        const runId = runIdParam(c);
        const { after, limit, wait } = readQuery(c, EventsQuery);
        const read = () =>
          runlogFor(c).eventPage(runId, {
            ...optional("after", after),
            ...optional("limit", limit),
            ...eventListing(runId, c.req.path),
          });
        const page = wait
          ? await waitForPage(read, {
              runId,
              after: after ?? 0,
              waitMs: wait * 1000,
              feed: live,
              signal: c.req.raw.signal,
            })
          : await read();
        return c.json({ runId, ...page });
      },
    },
    "/runs/:id/events/:seq": {
      GET: async (c) => {
        const runId = runIdParam(c);
        const seq = check(Seq, c.req.param("seq"), "seq");
        const { part } = readQuery(c, EventQuery);
        const event = await runlogFor(c).event(runId, seq);
        if (part !== undefined) return c.json(eventPart(runId, event, part, partHref(c.req.path)));
        const whole = { runId, event };
        if (jsonBytes(whole) <= RESPONSE_MAX_BYTES) return c.json(whole);
        throw tooBigForOne(c, runId, event.seq, jsonBytes(event));
      },
    },
  };
}

function tooBigForOne(c: Context, runId: string, seq: number, bytes: number) {
  const parts = partCount(bytes);
  return invalidInput(
    "part",
    `part: event ${seq} of run ${runId} is ${bytes} bytes of JSON, more than one answer holds ` +
      `(${RESPONSE_MAX_BYTES}): read it in ${parts} parts, ${c.req.path}?part=0 to ?part=${parts - 1}`,
  );
}
