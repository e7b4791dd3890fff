import type { StepDeps } from "./deps.ts";
import { currentRun } from "./logReads.ts";

/** How long a call waits for the log to grow before it stops waiting for the calls ahead of it. */
export const TURN_PATIENCE_MS = 3_000;
/**
 * How long a call lets the call just ahead of it, once started, store a quick tool's result
 * before it writes its own start: at least this, or three times what a look at the log takes
 * (SQLite in-process, DynamoDB over the network), so the two writes do not meet.
 */
const MIN_HOLD_MS = 15;
/** The wait between looks at the log: short when next, longer the more calls are ahead. */
const LOOK_EVERY_MS = 5;
const MAX_LOOK_EVERY_MS = 250;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Turn {
  runId: string;
  callId: string;
  /** The Map's list of call ids, in order: the calls ahead of this one write first. */
  batch?: readonly string[] | undefined;
}

/**
 * The K calls of one response run as K RunTool tasks at once, each appending to the one log. Left
 * to race, every round of writes has one winner and the rest try again: about K²/2 lost seq races,
 * each a billed conditional put. So a call writes its first event (its start, or the answer of a
 * call that will not run) in its place: once every call ahead of it in the Map's list has written
 * its own, and the call just ahead has stored its result or had a moment to (a quick tool's
 * result then lands before the next start instead of racing it). Starts never meet each other;
 * a slower tool's result can meet only the one start being written when it returns.
 *
 * Only ever a wait, never a rule: after TURN_PATIENCE_MS with no new event in the log (a sibling's
 * Lambda throttled, or retrying) a call writes anyway, at worst losing a race, which every append
 * survives.
 */
export async function awaitTurn(deps: StepDeps, { runId, callId, batch }: Turn): Promise<void> {
  const ahead = batch?.slice(0, Math.max(0, batch.indexOf(callId))) ?? [];
  const before = ahead.at(-1);
  if (before === undefined) return;
  let beforeSeenAt: number | undefined;
  for (let seen = 0, grewAt = Date.now(); ; ) {
    const lookedAt = Date.now();
    const events = await currentRun(deps, runId);
    const now = Date.now();
    const facts = deps.logs.factsOf(runId, events);
    const open = facts.batch;
    const wrote = (id: string) => open!.started.has(id) || open!.results.has(id);
    // The run moved on (answered, a newer generation, a cancel): the caller's own checks say how.
    if (!open || facts.cancelled || wrote(callId) || deps.signal?.aborted) return;
    const last = events.at(-1)?.seq ?? 0;
    if (last > seen) [seen, grewAt] = [last, now];
    if (now - grewAt >= TURN_PATIENCE_MS) return;
    const waiting = ahead.filter((id) => !wrote(id)).length;
    if (waiting === 0) {
      if (open.results.has(before)) return;
      beforeSeenAt ??= now;
      if (now - beforeSeenAt >= Math.max(MIN_HOLD_MS, 3 * (now - lookedAt))) return;
    }
    await sleep(waiting <= 1 ? LOOK_EVERY_MS : Math.min(waiting * MIN_HOLD_MS, MAX_LOOK_EVERY_MS));
  }
}
