import { classifyFacts } from "../core/classify.ts";
import type { RunEvent } from "../core/events.ts";
import type { LogFacts, LogView } from "../core/log.ts";
import type { Decision } from "./appendNext.ts";
import type { StepDeps } from "./deps.ts";
import { type ViewReader, writeNext } from "./writeNext.ts";

/*
 * Markers of where a run came to rest that no other event records: a pause for approval and the
 * sweeper giving up. They are appended under the seq lock like every event, so the lifecycle
 * derived from the log (lib/core/lifecycle.ts) has a committed fact to report, and each is written
 * once per rest: whoever finds it already there (a retried Finish, a later sweep) writes nothing.
 */

/** Whether the wait the log ends in already has its `paused` marker (after the batch's response). */
function pauseMarked(events: readonly RunEvent[], facts: LogFacts): boolean {
  const since = facts.batch?.response.seq ?? 0;
  return events.some((event) => event.type === "paused" && event.seq > since);
}

/**
 * Append the `paused` marker, naming the calls that wait, to a run that rests waiting for
 * decisions, unless its wait has one. `generation`: only while that generation owns the run (a
 * Finish; a newer one, a decision's resume, moved it on). Nothing when the run is not waiting.
 * The seq it wrote, so the head the caller rests records the log's end; undefined when it wrote none.
 */
export function markPaused(
  deps: StepDeps,
  runId: string,
  options: { generation?: number; read?: ViewReader } = {},
): Promise<number | undefined> {
  const decide = (events: readonly RunEvent[], facts: LogFacts): Decision<number | undefined> => {
    const none = { done: undefined };
    if (options.generation !== undefined && facts.generation !== options.generation) return none;
    const classification = classifyFacts(facts);
    if (classification.resumable || classification.reason !== "awaiting_approval") return none;
    if (pauseMarked(events, facts)) return none;
    return {
      append: { type: "paused", calls: classification.waitingToolCalls ?? [] },
      result: (event) => event.seq,
    };
  };
  return writeNext(deps, runId, "any", decide, ...(options.read ? [options.read] : []));
}

/**
 * Append the `given_up` marker to a run the sweeper stops resuming, unless the log already ends
 * in one (a later sweep meets the same rested run). True when this call wrote it.
 */
export function markGivenUp(
  deps: StepDeps,
  runId: string,
  resumes: number,
  read: ViewReader,
): Promise<number | undefined> {
  // Nothing may follow a cancel: one that came in between leaves nothing to give up on.
  const decide = (events: readonly RunEvent[], facts: LogFacts): Decision<number | undefined> =>
    events.at(-1)?.type === "given_up" || facts.cancelled
      ? { done: undefined }
      : { append: { type: "given_up", resumes }, result: (event) => event.seq };
  return writeNext(deps, runId, "any", decide, read);
}

/** A reader of the tail already read, read again from the store after a lost race. */
export const tailReader =
  (tail: LogView, again: () => Promise<LogView>): ViewReader =>
  (fresh) =>
    fresh ? again() : Promise.resolve(tail);
