import { canonicalJson } from "../core/canonicalJson.ts";
import { InvalidInputError } from "../core/errors.ts";
import type { RunEvent } from "../core/events.ts";
import { jsonBytes, utf8Prefix } from "../core/utf8.ts";
import { EVENT_PREVIEW_BYTES, type EventSummary, type PageEntry } from "../ports/eventStore.ts";

/** Events a page lists when no limit is given. */
export const EVENTS_DEFAULT_LIMIT = 100;
/** The most events one page lists. */
export const EVENTS_MAX_LIMIT = 1000;
/** The least JSON a page may be asked to fit in: room for any truncated event's entry, so a page always lists one. */
export const PAGE_MIN_BYTES = 64 * 1024;

/**
 * An event listed without its body, because its JSON alone is more than a page holds: its seq,
 * type and time, the first EVENT_PREVIEW_BYTES of its JSON, and where its whole body is read.
 */
export interface TruncatedEvent {
  seq: number;
  type: RunEvent["type"];
  at: string;
  truncated: { preview: string; href?: string };
}

/** One page of a run's log: its events (some truncated), and the `after` of the next page if the log goes on. */
export interface EventsPage {
  events: (RunEvent | TruncatedEvent)[];
  /** Pass as `after` for the next page; absent when this page reached the end of the log. */
  next?: number;
}

/** What eventPage reads. */
export interface EventPageRequest {
  /** Events with seq > after. @default 0 */
  after?: number;
  /** 1 to EVENTS_MAX_LIMIT. @default EVENTS_DEFAULT_LIMIT */
  limit?: number;
  /** The most bytes the events may take as JSON (array commas included), at least PAGE_MIN_BYTES. */
  maxBytes: number;
  /** Where a truncated event's whole body is read (the HTTP API's route). @default none */
  href?: (seq: number) => string;
}

/** The request's limit, or InvalidInputError naming `limit`. */
export function eventsLimit(limit: number | undefined): number {
  if (limit === undefined) return EVENTS_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > EVENTS_MAX_LIMIT) {
    throw new InvalidInputError(`limit: expected an integer from 1 to ${EVENTS_MAX_LIMIT}, got ${limit}`, {
      field: "limit",
    });
  }
  return limit;
}

function truncated(
  { seq, type, at }: RunEvent | EventSummary,
  preview: string,
  href: EventPageRequest["href"],
): TruncatedEvent {
  return { seq, type, at, truncated: { preview, ...(href ? { href: href(seq) } : {}) } };
}

/** A page entry as listed: the event, or its truncated form when its JSON alone is over `maxBytes`. */
function listed(entry: PageEntry, maxBytes: number, href: EventPageRequest["href"]) {
  if ("summary" in entry) return truncated(entry.summary, entry.summary.preview, href);
  const { event } = entry;
  if (jsonBytes(event) <= maxBytes) return event;
  return truncated(event, utf8Prefix(Buffer.from(canonicalJson(event), "utf8"), EVENT_PREVIEW_BYTES), href);
}

/**
 * The store's page as the API lists it, within `maxBytes` of JSON: it stops before the entry that
 * would pass the budget (the first always fits: see PAGE_MIN_BYTES), and `next` says where to go on.
 */
export function fitPage(
  entries: readonly PageEntry[],
  more: boolean,
  request: Pick<EventPageRequest, "maxBytes" | "href">,
): EventsPage {
  const { maxBytes, href } = request;
  const events: EventsPage["events"] = [];
  let used = 0;
  for (const entry of entries) {
    const item = listed(entry, maxBytes, href);
    const cost = jsonBytes(item) + (events.length > 0 ? 1 : 0);
    if (events.length > 0 && used + cost > maxBytes) return { events, next: events.at(-1)!.seq };
    events.push(item);
    used += cost;
  }
  return more && events.length > 0 ? { events, next: events.at(-1)!.seq } : { events };
}
