import { jsonBytes } from "../core/utf8.ts";
import { RESPONSE_MAX_BYTES } from "./limits.ts";

/** The answer's bytes besides its events: what they may take is RESPONSE_MAX_BYTES less this. */
const envelopeBytes = (runId: string) => jsonBytes({ runId, events: [], next: Number.MAX_SAFE_INTEGER });

/** `path` with `?part=N`: where part N of the event at `path` is read. */
export const partHref = (path: string) => (part: number) => `${path}?part=${part}`;

/**
 * How GET /runs/{id}/events (at `eventsPath`, under whatever prefix the app is mounted) lists a
 * run's events, for every page that lists them (that route, the live stream, the viewer's
 * timeline): within what one answer holds besides its envelope, so an event listed whole is
 * always answered whole by GET /runs/{id}/events/{seq}, and an event too big for that linked to
 * its first part.
 */
export function eventListing(runId: string, eventsPath: string) {
  return {
    maxBytes: RESPONSE_MAX_BYTES - envelopeBytes(runId),
    href: (seq: number) => partHref(`${eventsPath}/${seq}`)(0),
  };
}
