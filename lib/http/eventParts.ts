import { canonicalJson } from "../core/canonicalJson.ts";
import type { RunEvent } from "../core/events.ts";
import { invalidInput } from "./errors.ts";
import { PART_BYTES } from "./limits.ts";

/** One part of an event's JSON: bytes [part × PART_BYTES, (part + 1) × PART_BYTES) of it, as base64. */
export interface EventPart {
  runId: string;
  seq: number;
  /** The size of the whole event's JSON (UTF-8). */
  bytes: number;
  parts: number;
  part: number;
  data: string;
  /** Where the next part is read; absent on the last. */
  next?: string;
}

/** The event's JSON in parts: the same text its runlog store holds (keys sorted), as UTF-8. */
export const eventJson = (event: RunEvent) => Buffer.from(canonicalJson(event), "utf8");

export const partCount = (bytes: number) => Math.max(1, Math.ceil(bytes / PART_BYTES));

/** Part `part` of an event; a 400 naming `part` when it has fewer parts. `href(n)` is where part n is read. */
export function eventPart(
  runId: string,
  event: RunEvent,
  part: number,
  href: (part: number) => string,
): EventPart {
  const json = eventJson(event);
  const parts = partCount(json.length);
  if (part >= parts) {
    throw invalidInput(
      "part",
      `part: event ${event.seq} of run ${runId} has ${parts} part${parts === 1 ? "" : "s"} (0 to ${parts - 1}), got ${part}`,
    );
  }
  const data = json.subarray(part * PART_BYTES, (part + 1) * PART_BYTES).toString("base64");
  return {
    runId,
    seq: event.seq,
    bytes: json.length,
    parts,
    part,
    data,
    ...(part + 1 < parts ? { next: href(part + 1) } : {}),
  };
}
