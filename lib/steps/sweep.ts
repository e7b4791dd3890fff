import { classify, classifyFacts } from "../core/classify.ts";
import { CorruptEventError, errorMessage, LeaseHeldError } from "../core/errors.ts";
import { RESUMED_BY, type ResumeKind, type RunEvent } from "../core/events.ts";
import type { RunStatus } from "../core/status.ts";
import type { RunHead } from "../ports/eventStore.ts";
import type { ControlDeps } from "./deps.ts";
import { holderAlive } from "./lease.ts";
import { resumeRun } from "./resume.ts";

export interface SweepOptions {
  /** Leave runs whose head changed more recently than this: a live executor moves it with every step. @default 600000 */
  staleAfterMs?: number;
  /** Automatic resumes per request (since the run's latest new message); then the run waits for a person. @default 5 */
  maxAutoResumes?: number;
  /** The wait after an automatic resume before the next one; it doubles with each resume. @default 60000 */
  backoffMs?: number;
  /** The longest wait between two automatic resumes. @default 3600000 */
  maxBackoffMs?: number;
  /** Head statuses to look at. @default ["running"] */
  statuses?: readonly RunStatus[];
  /** At most this many heads per sweep, so one sweep's time stays bounded. @default 500 */
  maxRuns?: number;
}

export type SweepOutcome =
  | { runId: string; resumed: true; generation: number; kind: ResumeKind }
  | { runId: string; resumed: false; why: string };

export interface SweepReport {
  examined: number;
  resumed: { runId: string; generation: number; kind: ResumeKind }[];
  skipped: { runId: string; why: string }[];
  /** Runs whose resume failed (a store or orchestrator error); the next sweep tries them again. */
  failed: { runId: string; error: string }[];
}

const DEFAULTS = {
  staleAfterMs: 600_000,
  maxAutoResumes: 5,
  backoffMs: 60_000,
  maxBackoffMs: 3_600_000,
  statuses: ["running"] as readonly RunStatus[],
  maxRuns: 500,
};
type Policy = typeof DEFAULTS;
const PAGE = 100;

/**
 * Resume runs whose executor died: heads in a swept status, idle past the
 * threshold, whose lease lapsed or whose holder is gone, with a resumable log.
 * Each run gets a limited number of automatic resumes, further apart each time,
 * so a run that fails the same way again and again stops costing model calls.
 */
export async function sweep(deps: ControlDeps, options: SweepOptions = {}): Promise<SweepReport> {
  const policy = { ...DEFAULTS, ...options };
  const report: SweepReport = { examined: 0, resumed: [], skipped: [], failed: [] };
  for (const status of policy.statuses) {
    let cursor: string | undefined;
    do {
      const limit = Math.min(PAGE, policy.maxRuns - report.examined);
      if (limit <= 0) return report;
      const page = await deps.store.listRuns({ status, limit, ...(cursor === undefined ? {} : { cursor }) });
      for (const head of page.runs) {
        report.examined++;
        try {
          const outcome = await consider(deps, head, policy, true);
          if (outcome.resumed) {
            report.resumed.push({ runId: head.runId, generation: outcome.generation, kind: outcome.kind });
          } else report.skipped.push({ runId: head.runId, why: outcome.why });
        } catch (error) {
          report.failed.push({ runId: head.runId, error: errorMessage(error) });
        }
      }
      cursor = page.cursor;
    } while (cursor !== undefined);
  }
  return report;
}

/**
 * The sweep's policy for one run whose execution is known to have ended (a
 * failure event): no waiting for the head to go stale and any status, but the
 * same lease, resumability, limit and backoff checks. Errors are thrown.
 */
export async function recoverRun(
  deps: ControlDeps,
  runId: string,
  options: SweepOptions = {},
): Promise<SweepOutcome> {
  const head = await deps.store.getHead(runId);
  if (!head) return { runId, resumed: false, why: "no such run" };
  return consider(deps, head, { ...DEFAULTS, ...options }, false);
}

async function consider(
  deps: ControlDeps,
  head: RunHead,
  policy: Policy,
  waitForStale: boolean,
): Promise<SweepOutcome> {
  const { runId, lease } = head;
  const skip = (why: string): SweepOutcome => ({ runId, resumed: false, why });
  const now = deps.clock.now().getTime();
  const idleMs = now - Date.parse(head.updatedAt);
  if (waitForStale && !(idleMs >= policy.staleAfterMs)) {
    return skip(`updated ${Math.round(idleMs / 1000)}s ago; swept after ${policy.staleAfterMs / 1000}s idle`);
  }
  if (lease && lease.until > now && (await holderAlive(deps, lease))) {
    return skip(`being executed by ${lease.owner}`);
  }
  let events: RunEvent[];
  try {
    events = await deps.logs.load(runId);
  } catch (error) {
    if (error instanceof CorruptEventError) return skip(`not resumable: malformed (${error.message})`);
    throw error;
  }
  // Read into facts once: resumeRun below finds them in the cache.
  const classification =
    events.length === 0 ? classify(events) : classifyFacts(deps.logs.factsOf(runId, events));
  if (!classification.resumable) return skip(`not resumable: ${classification.reason}`);

  const { count, lastAt } = autoResumes(events);
  if (count >= policy.maxAutoResumes) {
    return skip(`gave up after ${count} resumes since the latest message; resume it by hand`);
  }
  if (count > 0 && lastAt !== undefined) {
    const due = lastAt + Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** (count - 1));
    if (now < due) return skip(`resume ${count + 1} is due at ${new Date(due).toISOString()}`);
  }
  try {
    const result = await resumeRun(deps, { runId, by: RESUMED_BY.sweeper });
    if (result.resumed) return { runId, resumed: true, generation: result.generation, kind: result.kind };
    return skip(`not resumable: ${result.classification.reason}`);
  } catch (error) {
    // Another resumer (a person, a failure event, a parallel sweep) got there first.
    if (error instanceof LeaseHeldError) return skip(error.message);
    throw error;
  }
}

/**
 * Automatic resumes since the latest new message (a user message, or a resume
 * that brought one), and when the last one happened: each request gets its own
 * budget. Only the sweeper's own resumes count: a handoff or a person's resume
 * does not use it up. A `resumed` event without `by` (written before it
 * existed) counts, as it did then.
 */
function autoResumes(events: readonly RunEvent[]): { count: number; lastAt?: number } {
  let count = 0;
  let lastAt: number | undefined;
  for (const event of events) {
    const newMessage =
      event.type === "user_message" || (event.type === "resumed" && event.input !== undefined);
    if (newMessage) {
      count = 0;
      lastAt = undefined;
    } else if (event.type === "resumed" && (event.by === undefined || event.by === RESUMED_BY.sweeper)) {
      count++;
      lastAt = Date.parse(event.at);
    }
  }
  return lastAt === undefined ? { count } : { count, lastAt };
}
