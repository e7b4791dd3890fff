import { classifyFacts } from "../core/classify.ts";
import { forEachConcurrently } from "../core/concurrency.ts";
import { benignReason, ConflictError, CorruptEventError, errorMessage } from "../core/errors.ts";
import type { ResumeKind } from "../core/eventFields.ts";
import type { RunEvent } from "../core/events.ts";
import type { LogView } from "../core/log.ts";
import { type RunStatus, restingStatusOf } from "../core/status.ts";
import type { RunHead } from "../ports/eventStore.ts";
import { countedAutoResumes, nextAutoResumeAt } from "./autoResumes.ts";
import type { ControlDeps } from "./deps.ts";
import { type ExpiryReport, expireApprovals } from "./expireApprovals.ts";
import { openGeneration } from "./generation/open.ts";
import { lastWriteAt, openedGeneration } from "./generation/opened.ts";
import { resumeResult } from "./generation/outcome.ts";
import { leaseFor } from "./lease.ts";
import { leaseIsLive } from "./liveness.ts";
import { loadRun, readTail, viewFacts } from "./logReads.ts";
import { markGivenUp, markPaused, tailReader } from "./restMarkers.ts";
import { expireRun } from "./retention.ts";
import { answerParent } from "./subagents/answer.ts";
import { lookUpChildren } from "./subagents/lookUp.ts";
import { decodeCursor, encodeCursor, type Position } from "./sweepCursor.ts";

export { autoResumesAfter } from "./autoResumes.ts";

/** The lease owner the sweeper writes a resting status under (never an execution: see `rest`). */
const SWEEPER_OWNER = "sweeper";

/** How a sweep chooses the runs it resumes, and how often it resumes one. */
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
  /** At most this many heads per sweep, an explicit bound. @default every candidate */
  maxRuns?: number;
  /** Start no candidate after this long (ms, by the clock); the report's cursor continues from there. @default no limit */
  budgetMs?: number;
  /** Candidates looked at (lease, tail, resume) at the same time. @default 16 */
  concurrency?: number;
  /** Continue an incomplete sweep: its report's `cursor`. @default from the oldest candidate */
  cursor?: string;
}

/** What a sweep did with one run: resumed it, or why not. */
export type SweepOutcome =
  | { runId: string; resumed: true; generation: number; kind: ResumeKind }
  | { runId: string; resumed: false; why: string };

/** What one sweep did. */
export interface SweepReport {
  /** Heads looked at. */
  examined: number;
  /** Runs resumed, each with the generation that now executes it. */
  resumed: { runId: string; generation: number; kind: ResumeKind }[];
  /** Runs left alone, and why (live, resting, waiting out a backoff, out of automatic resumes …). */
  skipped: { runId: string; why: string }[];
  /** Runs whose resume failed (a store or orchestrator error); the next sweep tries them again. */
  failed: { runId: string; error: string }[];
  /** Whether every candidate was looked at (false when the budget or maxRuns ran out first). */
  complete: boolean;
  /** Where an incomplete sweep stopped: pass it as `cursor` to go on from there. */
  cursor?: string;
  /**
   * The age (ms) of the oldest candidate without progress the sweep saw, the ones left waiting for
   * a person aside: what an alarm on recovery falling behind watches. Absent when there was none.
   */
  oldestStaleAgeMs?: number;
  /**
   * The pass over `paused` runs after the recovery, within what is left of the budget: calls whose
   * approval expired answered as rejected, and those runs gone on (lib/steps/expireApprovals.ts).
   */
  approvals: ExpiryReport;
}

/** Reasons a run waits for someone (not an ending): nothing to tell a parent. */
const WAITS = new Set(["awaiting_approval", "awaiting_children", "budget_exhausted"]);

const DEFAULTS = {
  staleAfterMs: 600_000,
  maxAutoResumes: 5,
  backoffMs: 60_000,
  maxBackoffMs: 3_600_000,
  // `waiting` too: a parent whose last child answered as it came to rest is moved on here.
  statuses: ["running", "waiting"] as readonly RunStatus[],
  maxRuns: Number.POSITIVE_INFINITY,
  budgetMs: Number.POSITIVE_INFINITY,
  concurrency: 16,
};
type Policy = typeof DEFAULTS;
/** Heads per listing page: a few windows of work, so a page is read while the one before is worked on. */
const PAGE = 100;

/** A candidate's outcome, and whether it now waits for a person (or rests) rather than for recovery. */
type Considered = SweepOutcome & { settled?: true };

/**
 * Resume runs whose executor died: heads in a swept status, idle past the
 * threshold, whose lease lapsed or whose holder is gone, with a resumable log.
 * Each run gets a limited number of automatic resumes, further apart each time,
 * so a run that fails the same way again and again stops costing model calls.
 * It reads heads and tails only, and keeps the count and back-off on the head
 * (claimLease writes them with the claim): a candidate costs the same store calls
 * however long its run is. A candidate it will not resume (its tail is final, or
 * it gave up on it) gets the status it rests in written to its head, so later
 * sweeps of `running` heads do not read it again.
 *
 * Candidates are read oldest first, only those idle past the threshold (a bound of the query),
 * every page of them, and looked at `concurrency` at a time. Within `budgetMs` it starts no more,
 * and its report says where it stopped: a resumed or rested run leaves the candidates, so the
 * next sweep from the oldest finds the rest, and one passed the cursor goes on past the runs this
 * one skipped (waiting out a back-off), so those never starve the ones behind them.
 */
export async function sweep(deps: ControlDeps, options: SweepOptions = {}): Promise<SweepReport> {
  const policy = { ...DEFAULTS, ...options };
  const report: SweepReport = {
    examined: 0,
    resumed: [],
    skipped: [],
    failed: [],
    complete: true,
    approvals: { examined: 0, expired: [], failed: [], complete: false },
  };
  const now = deps.clock.now().getTime();
  const deadline = now + policy.budgetMs;
  const upTo = new Date(now - policy.staleAfterMs).toISOString();
  let oldest: string | undefined;
  const examined = new Set<string>();
  const saw = (updatedAt: string) => {
    if (oldest === undefined || updatedAt < oldest) oldest = updatedAt;
  };
  let position: Position =
    options.cursor === undefined ? { status: 0 } : decodeCursor(options.cursor, policy.statuses.length);
  const more = () => report.examined < policy.maxRuns && deps.clock.now().getTime() < deadline;
  const list = (status: RunStatus, cursor: string | undefined) =>
    deps.store.listRuns({
      status,
      order: "oldestFirst",
      updatedAtMost: upTo,
      limit: PAGE,
      ...(cursor === undefined ? {} : { cursor }),
    });
  for (; position.status < policy.statuses.length; position = { status: position.status + 1 }) {
    const status = policy.statuses[position.status]!;
    let page = await list(status, position.list);
    const done = position.done;
    // A sweep that stopped part way through this page looked at its heads up to `done`.
    if (done !== undefined) {
      const after = (h: RunHead) => h.updatedAt > done[0] || (h.updatedAt === done[0] && h.runId > done[1]);
      page = { ...page, runs: page.runs.filter(after) };
    }
    for (;;) {
      // A head moved by someone else while the sweep pages (a resume elsewhere) may be listed again.
      const heads = page.runs.filter((head) => !examined.has(head.runId));
      const started = await forEachConcurrently(
        heads,
        policy.concurrency,
        async (head) => {
          examined.add(head.runId);
          report.examined++;
          try {
            const outcome = await consider(deps, head, policy, true);
            if (!outcome.settled) saw(head.updatedAt);
            if (outcome.resumed) {
              report.resumed.push({ runId: head.runId, generation: outcome.generation, kind: outcome.kind });
            } else report.skipped.push({ runId: head.runId, why: outcome.why });
          } catch (error) {
            saw(head.updatedAt);
            report.failed.push({ runId: head.runId, error: errorMessage(error) });
          }
        },
        more,
      );
      if (started < heads.length) {
        // Out of budget mid-page: the next sweep reads the page again and goes on after the last
        // head started here (started in order, all finished); the first not looked at counts as waiting.
        const last = heads[started - 1];
        saw(heads[started]!.updatedAt);
        const at: Position =
          last === undefined ? position : { ...position, done: [last.updatedAt, last.runId] };
        return stopped(report, at, now, oldest);
      }
      if (page.cursor === undefined) break;
      position = { status: position.status, list: page.cursor };
      page = await list(status, page.cursor);
    }
  }
  report.approvals = await expireApprovals(deps, { until: deadline, concurrency: policy.concurrency });
  return finish(report, now, oldest);
}

function stopped(
  report: SweepReport,
  position: Position,
  now: number,
  oldest: string | undefined,
): SweepReport {
  report.complete = false;
  report.cursor = encodeCursor(position);
  return finish(report, now, oldest);
}

function finish(report: SweepReport, now: number, oldest: string | undefined): SweepReport {
  if (oldest !== undefined) report.oldestStaleAgeMs = Math.max(0, now - Date.parse(oldest));
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
  const { settled: _, ...outcome } = await consider(deps, head, { ...DEFAULTS, ...options }, false);
  return outcome;
}

async function consider(
  deps: ControlDeps,
  head: RunHead,
  policy: Policy,
  waitForStale: boolean,
): Promise<Considered> {
  const { runId } = head;
  const skip = (why: string): SweepOutcome => ({ runId, resumed: false, why });
  const settle = (why: string): Considered => ({ runId, resumed: false, why, settled: true });
  const now = deps.clock.now().getTime();
  const idleMs = now - Date.parse(head.updatedAt);
  if (waitForStale && !(idleMs >= policy.staleAfterMs)) {
    return skip(`updated ${Math.round(idleMs / 1000)}s ago; swept after ${policy.staleAfterMs / 1000}s idle`);
  }
  if (await leaseIsLive(deps, head.lease)) return skip(`being executed by ${head.lease!.owner}`);

  // The tail only, never the whole log: a sweep costs the same on a run of any length.
  const reread = rereadOf(deps, runId);
  let tail: LogView;
  try {
    tail = await readTail(deps, runId);
  } catch (error) {
    if (!(error instanceof CorruptEventError)) throw error;
    await rest(deps, head, "malformed");
    return settle(`not resumable: malformed (${error.message})`);
  }
  const facts = viewFacts(deps, runId, tail);
  const classification = classifyFacts(facts);
  const lastSeq = tail.events.at(-1)!.seq;
  if (facts.stopped) {
    // Stopped outside runlog: whoever stopped it meant it; going on is a person's choice.
    await rest(deps, head, restingStatusOf(facts, classification), lastSeq, facts.agent);
    return settle(`not resumed: ${facts.stopped.reason}; a person resumes it`);
  }
  if (!classification.resumable) {
    // An execution that died before its Finish left the pause unmarked: the sweeper marks it.
    const marked =
      classification.reason === "awaiting_approval"
        ? await markPaused(deps, runId, { read: reread(tail) })
        : undefined;
    // A sub-agent's child that ended with nobody to say so answers its parent's call first.
    if (!WAITS.has(classification.reason)) await answerParent(deps, await firstOf(deps, runId, tail), tail);
    await rest(deps, head, restingStatusOf(facts, classification), marked ?? lastSeq, facts.agent);
    // A parent waiting for its sub-agents looks them up: a child never started, or ended unannounced.
    if (classification.reason === "awaiting_children") await lookUpChildren(deps, runId);
    return settle(`not resumable: ${classification.reason}`);
  }
  // A generation opened and never executed (its opener died, or its start failed) is finished, not
  // resumed anew: it opens nothing, so it spends no budget and waits for no back-off.
  if (openedGeneration(tail, facts) && (await neverExecuted(deps, head))) return resumeAs(deps, runId, skip);
  // Heads of runs swept before the count moved onto the head carry none: their count starts at 0.
  const record = countedAutoResumes(head.autoResumes, lastWriteAt(tail));
  const count = record?.count ?? 0;
  if (count >= policy.maxAutoResumes) {
    // Resting, the run leaves the `running` heads: later sweeps do not read it again. It rests as
    // `interrupted` whatever its tail (even a failed model call): waiting for a person, not final.
    // The log says so first (`given_up`, once: a later sweep meeting the rested run finds it there).
    const marked = await markGivenUp(deps, runId, count, reread(tail));
    await rest(deps, head, "interrupted", marked ?? lastSeq, facts.agent);
    deps.observer?.gaveUp?.(runId, count);
    return settle(`gave up after ${count} resumes since the latest message; resume it by hand`);
  }
  const due = nextAutoResumeAt(record, policy);
  if (due !== undefined && now < due)
    return skip(`resume ${count + 1} is due at ${new Date(due).toISOString()}`);
  return resumeAs(deps, runId, skip);
}

/** A run's `run_started`: the tail's first event when it reaches seq 1, else read alone. */
async function firstOf(deps: ControlDeps, runId: string, tail: LogView): Promise<RunEvent> {
  const first = tail.events[0]!;
  if (first.seq === 1) return first;
  const entry = (await deps.store.readPage(runId, { limit: 1, maxBytes: FIRST_EVENT_BYTES })).entries[0];
  if (entry !== undefined && "event" in entry) return entry.event;
  return (await loadRun(deps, runId))[0]!;
}

/** Enough for any `run_started` (its input is the largest part). */
const FIRST_EVENT_BYTES = 4_000_000;

/** The tail a sweep read, then the tail as stored after a lost race. */
function rereadOf(deps: ControlDeps, runId: string) {
  return (tail: LogView) => tailReader(tail, () => readTail(deps, runId));
}

/**
 * Resume as the sweeper; a resumer that got there first, a cancel or a newer generation met on
 * the way is a reason to skip, not a failure (benignReason, as the AWS functions answer them).
 */
async function resumeAs(
  deps: ControlDeps,
  runId: string,
  skip: (why: string) => SweepOutcome,
): Promise<SweepOutcome> {
  try {
    const result = resumeResult(await openGeneration(deps, { kind: "sweep", runId }));
    if (result.resumed) return { runId, resumed: true, generation: result.generation, kind: result.kind };
    return skip(`not resumable: ${result.classification.reason}`);
  } catch (error) {
    // Another resumer (a person, a failure event, a parallel sweep) got there first, or a cancel.
    if (benignReason(error) !== undefined) return skip(errorMessage(error));
    throw error;
  }
}

/**
 * Record the status a run whose executor is gone rests in, so its head stops showing `running`:
 * taking the lease first (at the version read) makes this a compare-and-set, so a resume that
 * claimed the run in between is never overwritten. Losing that race leaves the head to the winner.
 * `agent`: the agent in charge, when the tail shows it.
 */
async function rest(
  deps: ControlDeps,
  head: RunHead,
  status: RunStatus,
  lastSeq?: number,
  agent?: string,
): Promise<void> {
  if (head.status === status && !head.lease && (agent === undefined || agent === head.agent)) return;
  const owner = `${SWEEPER_OWNER}:${head.runId}`;
  try {
    await deps.store.claimLease(head.runId, leaseFor(deps, owner), head.leaseVersion);
  } catch (error) {
    if (error instanceof ConflictError) return;
    throw error;
  }
  await expireRun(deps, head.runId, status);
  await deps.store.releaseLease(head.runId, owner, status, lastSeq, agent);
}

/** Whether the holder of a run's lease never had its execution started (or nobody holds it). */
async function neverExecuted(deps: ControlDeps, head: RunHead): Promise<boolean> {
  return !head.lease || (await deps.orchestrator.executionOf(head.lease.owner)) === "none";
}
