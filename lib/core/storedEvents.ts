import { EVENT_TYPES } from "./eventConstants.ts";
import { SCHEMA_VERSION } from "./eventEnvelope.ts";
import type { NewEvent, RunEvent } from "./events.ts";

/*
 * The stored form of an event: stamping a new event with its position and time, and decoding a
 * record read back (every field for records from outside, the envelope for a store's own).
 */

/** Result of decoding one stored record. */
export type Decoded = { ok: true; event: RunEvent } | { ok: false; problem: string };

const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

/**
 * Decode an event a store holds, already JSON-parsed. What a store holds it wrote itself, as the
 * canonical JSON of an event built by typed code, so only the envelope is checked here (an object
 * of this schema version, of a known type, with a seq and a time), not every field again: a fresh
 * process reads a long log at the cost of JSON.parse, not of the schema. Records from outside (a
 * fixture, an import) go through decodeEvent (lib/core/decodeEvent.ts), which checks every field.
 */
export function decodeStoredEvent(raw: unknown): Decoded {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { ok: false, problem: "event: expected a JSON object" };
  }
  const record = raw as Record<string, unknown>;
  if (record.v !== SCHEMA_VERSION) {
    return {
      ok: false,
      problem:
        record.v === undefined
          ? `v: missing (this runlog reads v${SCHEMA_VERSION})`
          : `unknown schema version ${JSON.stringify(record.v)} (this runlog reads v${SCHEMA_VERSION})`,
    };
  }
  if (typeof record.type !== "string" || !KNOWN_TYPES.has(record.type)) {
    return { ok: false, problem: `type: unknown event type ${JSON.stringify(record.type)}` };
  }
  if (typeof record.seq !== "number" || !Number.isInteger(record.seq) || record.seq < 1) {
    return { ok: false, problem: `seq: expected an integer >= 1, got ${JSON.stringify(record.seq)}` };
  }
  if (typeof record.at !== "string" || record.at.length === 0) {
    return { ok: false, problem: `at: expected the time it was written, got ${JSON.stringify(record.at)}` };
  }
  return { ok: true, event: record as RunEvent };
}

/** Give a new event its position, its time and (when known) the generation it leaves the run in. */
export function stamp(event: NewEvent, seq: number, at: Date, gen?: number): RunEvent {
  const stamped = { ...event, v: SCHEMA_VERSION, seq, at: at.toISOString() } as RunEvent;
  return gen === undefined ? stamped : { ...stamped, gen };
}
