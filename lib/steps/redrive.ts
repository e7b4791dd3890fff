import { benignReason, CorruptEventError, errorMessage } from "../core/errors.ts";
import { RESUMED_BY } from "../core/eventConstants.ts";
import { redrivable, redriveStreakBoundary, redrivesInStreak } from "../core/redrive.ts";
import type { RunHead } from "../ports/eventStore.ts";
import type { ControlDeps } from "./deps.ts";
import { openGeneration } from "./generation/open.ts";
import { resumeResult } from "./generation/outcome.ts";
import { leaseIsLive } from "./liveness.ts";
import { readTail, viewFacts } from "./logReads.ts";

export interface RedriveOptions {
  /** Only runs whose head changed within this long (ms). @default every failed run */
  sinceMs?: number;
  /** Only runs of this agent. @default every agent */
  agent?: string;
  /** Judge every run and report what would be done; write and start nothing. @default false */
  dryRun?: boolean;
  /** Runs resumed at the same time, at most. @default 4 */
  concurrency?: number;
  /** Resumes started per second, at most. @default 10 */
  perSecond?: number;
  /** Only failures at least this old (ms): the quiet period of an automatic redrive. @default 0 */
  quietMs?: number;
  /**
   * Leave a run that was redriven this many times since it last made progress (a model response,
   * a new message) and failed each time. @default no limit
   */
  maxRedrives?: number;
  /** At most this many failed heads looked at. @default 10000 */
  maxRuns?: number;
}

/** What a redrive did, or would do (a dry run), with one run. */
export type RedriveOutcome =
  | { runId: string; outcome: "resumed"; generation: number }
  | { runId: string; outcome: "would_resume" }
  | { runId: string; outcome: "skipped"; why: string }
  | { runId: string; outcome: "failed"; error: string };

/** What one redrive did. */
export interface RedriveReport {
  /** True when nothing was written: each run says what would be done. */
  dryRun: boolean;
  /** Failed heads looked at. */
  examined: number;
  /** Runs resumed (in a dry run: that would be). */
  resumed: number;
  /** Runs left as they are: failed for a reason that would fail again, being executed, … */
  skipped: number;
  /** Runs whose resume failed (a store or orchestrator error); the next redrive tries them again. */
  failed: number;
  /** One entry per run looked at, in the order they were listed (most recently updated first). */
  runs: RedriveOutcome[];
}

const DEFAULTS = { concurrency: 4, perSecond: 10, quietMs: 0, maxRuns: 10_000 };
const PAGE = 100;

/** Automatic redrives of one run that fail each time, before it waits for a person. */
export const AUTO_REDRIVES = 3;

/**
 * The sweeper's automatic redrive: runs failed retryably and quiet for `afterMs` (the failure's
 * own time, so a run that fails again waits a new quiet period), at most AUTO_REDRIVES in a row
 * without progress, a bounded number per sweep.
 */
export const autoRedrivePolicy = (afterMs: number): RedriveOptions => ({
  quietMs: afterMs,
  maxRedrives: AUTO_REDRIVES,
  maxRuns: 500,
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * After an outage: resume every run that ended `failed` for a retryable reason (core's
 * `redrivable` judges each log's tail), through the generation protocol as `by: "redrive"`, a
 * bounded number at a time and no faster than `perSecond`. A run whose request was rejected
 * fails again, so it is left as it is. A run another resumer got to first is skipped, not failed.
 */
export async function redrive(deps: ControlDeps, options: RedriveOptions = {}): Promise<RedriveReport> {
  const policy = { ...DEFAULTS, ...options };
  const heads = await failedHeads(deps, policy);
  const runs: RedriveOutcome[] = new Array(heads.length);
  const spacing = 1000 / policy.perSecond;
  let nextStart = 0;
  let index = 0;
  // The rate: each resume takes the next start slot; the workers: at most `concurrency` at once.
  const slot = async () => {
    const now = Date.now();
    const at = Math.max(now, nextStart);
    nextStart = at + spacing;
    if (at > now) await sleep(at - now);
  };
  const worker = async () => {
    while (index < heads.length) {
      const i = index++;
      runs[i] = await redriveOne(deps, heads[i]!, policy, slot);
    }
  };
  const workers = Math.max(1, Math.min(policy.concurrency, heads.length));
  await Promise.all(Array.from({ length: workers }, worker));
  const count = (outcome: RedriveOutcome["outcome"]) => runs.filter((run) => run.outcome === outcome).length;
  return {
    dryRun: policy.dryRun === true,
    examined: heads.length,
    resumed: count(policy.dryRun ? "would_resume" : "resumed"),
    skipped: count("skipped"),
    failed: count("failed"),
    runs,
  };
}

/** Every `failed` head (newest first) updated within `sinceMs`, of `agent` if given. */
async function failedHeads(deps: ControlDeps, policy: RedriveOptions & typeof DEFAULTS): Promise<RunHead[]> {
  const since = policy.sinceMs === undefined ? undefined : deps.clock.now().getTime() - policy.sinceMs;
  const heads: RunHead[] = [];
  let cursor: string | undefined;
  do {
    const page = await deps.store.listRuns({
      status: "failed",
      limit: PAGE,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const head of page.runs) {
      // Newest first: the first head older than the bound ends the listing.
      if (since !== undefined && Date.parse(head.updatedAt) < since) return heads;
      if (policy.agent !== undefined && head.agent !== policy.agent) continue;
      heads.push(head);
      if (heads.length >= policy.maxRuns) return heads;
    }
    cursor = page.cursor;
  } while (cursor !== undefined);
  return heads;
}

async function redriveOne(
  deps: ControlDeps,
  head: RunHead,
  policy: RedriveOptions & typeof DEFAULTS,
  slot: () => Promise<void>,
): Promise<RedriveOutcome> {
  const { runId } = head;
  const skipped = (why: string): RedriveOutcome => ({ runId, outcome: "skipped", why });
  try {
    if (await leaseIsLive(deps, head.lease)) return skipped(`being executed by ${head.lease!.owner}`);
    let verdict: ReturnType<typeof redrivable>;
    try {
      const tail = await readTail(deps, runId);
      verdict = redrivable(viewFacts(deps, runId, tail));
    } catch (error) {
      if (error instanceof CorruptEventError) return skipped(`malformed: ${error.message}`);
      throw error;
    }
    if (!verdict.redrivable) return skipped(verdict.why);
    const quietFor = deps.clock.now().getTime() - Date.parse(verdict.failure.at);
    if (quietFor < policy.quietMs) {
      return skipped(`failed ${Math.round(quietFor / 1000)}s ago; redriven after ${policy.quietMs / 1000}s`);
    }
    if (policy.maxRedrives !== undefined) {
      const streak = redrivesInStreak(
        await deps.store.readBack(runId, redriveStreakBoundary(2 * policy.maxRedrives + 2)),
      );
      if (streak >= policy.maxRedrives) {
        return skipped(`redriven ${streak} time(s) since it last made progress, failing each time`);
      }
    }
    if (policy.dryRun) return { runId, outcome: "would_resume" };
    await slot();
    const result = resumeResult(
      await openGeneration(deps, { kind: "resume", runId, by: RESUMED_BY.redrive }),
    );
    if (!result.resumed) return skipped(`not resumable: ${result.classification.reason}`);
    return { runId, outcome: "resumed", generation: result.generation };
  } catch (error) {
    // Another resumer (a person, the sweeper, a parallel redrive) got there first, or a cancel.
    if (benignReason(error) !== undefined) return skipped(errorMessage(error));
    return { runId, outcome: "failed", error: errorMessage(error) };
  }
}
