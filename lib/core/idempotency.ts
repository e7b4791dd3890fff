import { IdempotencyKeyReusedError } from "./errors.ts";
import type { RunEvent } from "./events.ts";

/*
 * Idempotency keys of control operations. The key lives in the log, on the event the operation
 * wrote, not in a table of its own: a retry (concurrent, or an hour later on another process) reads
 * the log, finds the event, and answers what the first request did. Because every append is a
 * conditional put at the next seq, two requests with one key cannot both write: the loser re-reads
 * the log and finds the winner's event (the seq lock).
 */

/** The event of a log that carries `key`, if any. */
export function keyedEvent(events: readonly RunEvent[], key: string): RunEvent | undefined {
  return events.findLast((event) => "idempotencyKey" in event && event.idempotencyKey === key);
}

/** A value as an error quotes it: a long text cut at 40 characters. */
function quoted(value: unknown): string {
  if (value === undefined) return "none";
  if (typeof value !== "string") return JSON.stringify(value);
  const chars = [...value];
  return JSON.stringify(chars.length > 40 ? `${chars.slice(0, 39).join("")}…` : value);
}

/** The request that writes each keyed event, as words. */
const REQUESTS: Partial<Record<RunEvent["type"], string>> = {
  run_started: "a start or a fork",
  resumed: "a message",
  tool_decided: "a decision",
  cancelled: "a cancel",
};
const requestOf = (event: RunEvent) =>
  event.type === "tool_decided"
    ? `a decision on call ${event.callId}`
    : (REQUESTS[event.type] ?? `a ${event.type} event`);

/**
 * What sets a recorded event apart from the request being retried, field by field, as words:
 * `fields` are the request's values of the fields that make it the request it is. Empty when the
 * event is this request's.
 */
export function keyedDifferences(
  event: RunEvent,
  type: RunEvent["type"],
  fields: Record<string, unknown>,
): string[] {
  if (event.type !== type)
    return [`the key was used for ${requestOf(event)} (seq ${event.seq}), not for ${REQUESTS[type] ?? type}`];
  const recorded = event as Record<string, unknown>;
  return Object.entries(fields)
    .filter(([name, value]) => recorded[name] !== value)
    .map(([name, value]) => `${name} ${quoted(recorded[name])}, not ${quoted(value)}`);
}

/** Refuse a key that the log records for a different request: an IdempotencyKeyReusedError naming what differs. */
export function assertSameKeyed(
  runId: string,
  key: string,
  event: RunEvent,
  type: RunEvent["type"],
  fields: Record<string, unknown>,
): void {
  const differences = keyedDifferences(event, type, fields);
  if (differences.length > 0)
    throw new IdempotencyKeyReusedError(key, differences, { runId, seq: event.seq });
}
