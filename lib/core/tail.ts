import { continuationStart, endsContinuation, isAnswer, isContinuedPart } from "./continuation.ts";
import type { RunEvent } from "./events.ts";
import type { LogView } from "./log.ts";

/**
 * An anchor is an event that fixes where a conversation stands: a message or
 * an answer. What follows it (tool calls starting and finishing, decisions,
 * markers) is read on top of it, so a log read backwards from its end as far
 * as the last anchor, and to the generation in force there, says everything
 * `classify` needs, however long the log is.
 */
export function isAnchor(event: RunEvent): boolean {
  switch (event.type) {
    case "run_started":
    case "user_message":
    case "model_response":
    case "model_failed":
    case "output_rejected":
      return true;
    case "resumed":
      return event.input !== undefined;
    default:
      return false;
  }
}

/**
 * For reading a log backwards (newest first): returns true at the oldest event
 * the tail needs. That is the last anchor itself, which records the generation
 * it was written in (`gen`); for logs written before `gen` existed, the
 * `resumed` (or `run_started`) before it, which is never far back either:
 * every execution starts with one and is bounded in steps. An answer that
 * continues responses cut at the output limit needs those too (its text is
 * theirs joined, lib/core/continuation.ts): the tail goes back to the oldest of
 * them, and returns true at the event before it, which fromAnchor leaves out.
 */
export function tailBoundary(): (event: RunEvent) => boolean {
  let anchored = false;
  /** While reading back through what an answer continues: the oldest event needed so far. */
  let continuing: RunEvent | undefined;
  return (event) => {
    if (event.type === "run_started") return true;
    if (continuing) {
      if (!endsContinuation(event)) {
        if (isContinuedPart(event)) continuing = event;
        return false;
      }
      const oldest = continuing;
      continuing = undefined;
      return generationBefore(oldest) !== undefined || event.type === "resumed";
    }
    if (!anchored) {
      anchored = isAnchor(event);
      if (anchored && isAnswer(event)) {
        continuing = event;
        return false;
      }
      return anchored && generationBefore(event) !== undefined;
    }
    return event.type === "resumed";
  };
}

/** The generation in force just before `event`, when the event itself tells it. */
function generationBefore(event: RunEvent): number | undefined {
  // Only `resumed` changes the generation, and always to the one after.
  return event.type === "resumed" ? event.generation - 1 : event.gen;
}

/**
 * Cut a tail read with `tailBoundary` (oldest first) down to what readLog
 * reads: the events from the last anchor on, and (its `start`) the generation before it.
 */
export function fromAnchor(events: readonly RunEvent[]): LogView & { start: NonNullable<LogView["start"]> } {
  const last = events.findLastIndex(isAnchor);
  if (last < 0) return { events: [...events], start: { seq: events[0]?.seq ?? 1, generation: 1 } };
  // An answer's tail starts at the oldest response it continues (tailBoundary read back to it).
  const anchor = isAnswer(events[last]!) ? continuationStart(events, last) : last;
  const before = events.slice(0, anchor).findLast((event) => event.type === "resumed");
  const generation =
    generationBefore(events[anchor]!) ?? (before?.type === "resumed" ? before.generation : 1);
  return { events: events.slice(anchor), start: { seq: events[anchor]!.seq, generation } };
}
