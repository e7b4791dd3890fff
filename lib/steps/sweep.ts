/*
 * The scheduled recovery sweep: it pages through the stale heads, oldest first, judges each
 * (sweepCandidate.ts) within a budget, and reports what it did and where it stopped.
 */
import { forEachConcurrently } from "../core/concurrency.ts";
import { errorMessage } from "../core/errors.ts";
import type { ResumeKind } from "../core/eventFields.ts";
import type { RunStatus } from "../core/status.ts";
import type { RunHead } from "../ports/eventStore.ts";
import type { ControlDeps } from "./deps.ts";
import { type ExpiryReport, expireApprovals } from "./expireApprovals.ts";
import { consider } from "./sweepCandidate.ts";
import { decodeCursor, encodeCursor, type Position } from "./sweepCursor.ts";
import { DEFAULTS, type SweepOptions } from "./sweepPolicy.ts";

export { autoResumesAfter } from "./autoResumes.ts";

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

/** Heads per listing page: a few windows of work, so a page is read while the one before is worked on. */
const PAGE = 100;

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
  report.approvals = await expireApprovals(deps, {
    until: deadline,
    concurrency: policy.concurrency,
    staleAfterMs: policy.staleAfterMs,
  });
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
