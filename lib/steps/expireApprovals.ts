import { dueApprovals } from "../core/approvalExpiry.ts";
import { classifyFacts } from "../core/classify.ts";
import { forEachConcurrently } from "../core/concurrency.ts";
import { benignReason, CorruptEventError, errorMessage } from "../core/errors.ts";
import { APPROVAL_EXPIRED, DECIDED_BY_TIMEOUT, RESUMED_BY } from "../core/eventConstants.ts";
import type { LogFacts } from "../core/log.ts";
import type { ControlDeps } from "./deps.ts";
import { openGeneration } from "./generation/open.ts";
import { resumeResult } from "./generation/outcome.ts";
import { readTail, viewFacts } from "./logReads.ts";
import { DEFAULTS } from "./sweepPolicy.ts";
import { writeNext } from "./writeNext.ts";

/** How an expiry pass looks at paused runs. */
export interface ExpiryOptions {
  /** Start no run after this time (epoch ms, by the clock). @default no limit */
  until?: number;
  /** Runs looked at the same time. @default 16 */
  concurrency?: number;
  /**
   * How long a person's last decision may wait for the resume its own request makes before the pass
   * makes it (that request died after writing the decision). @default 600000, the sweep's staleAfterMs
   */
  staleAfterMs?: number;
}

/** What one expiry pass did. */
export interface ExpiryReport {
  /** Paused runs looked at. */
  examined: number;
  /** Runs some of whose calls were answered as rejected ("approval expired"), and the generation that went on, if it did. */
  expired: { runId: string; callIds: string[]; generation?: number }[];
  /** Runs the pass failed on (a store or orchestrator error): the next pass tries them again. */
  failed: { runId: string; error: string }[];
  /** Whether every paused run was looked at (false when `until` came first). */
  complete: boolean;
}

/** What expiring one run came to. */
export interface RunExpiry {
  /** The calls this pass answered as rejected (not those a person decided first). */
  callIds: string[];
  /** The generation the run went on with, when this pass resumed it. */
  generation?: number;
}

const PAGE = 100;

/**
 * Answer every call whose approval expired as rejected, in each `paused` run, oldest first.
 * What a run waits for is read from its tail, and the deadline from the log (expiringApprovals),
 * so a pass at any time after a restart does the same. The sweep runs it (lib/steps/sweep.ts).
 */
export async function expireApprovals(deps: ControlDeps, options: ExpiryOptions = {}): Promise<ExpiryReport> {
  const report: ExpiryReport = { examined: 0, expired: [], failed: [], complete: true };
  const until = options.until ?? Number.POSITIVE_INFINITY;
  const more = () => deps.clock.now().getTime() < until;
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await deps.store.listRuns({
      status: "paused",
      order: "oldestFirst",
      limit: PAGE,
      ...(cursor === undefined ? {} : { cursor }),
    });
    // A head another writer moved while the pass pages may be listed again.
    const heads = page.runs.filter((head) => !seen.has(head.runId));
    const started = await forEachConcurrently(
      heads,
      options.concurrency ?? 16,
      async ({ runId }) => {
        seen.add(runId);
        report.examined++;
        try {
          const done = await expireRun(deps, runId, options.staleAfterMs ?? DEFAULTS.staleAfterMs);
          if (done.callIds.length > 0 || done.generation !== undefined)
            report.expired.push({ runId, ...done });
        } catch (error) {
          report.failed.push({ runId, error: errorMessage(error) });
        }
      },
      more,
    );
    if (started < heads.length) return { ...report, complete: false };
    cursor = page.cursor;
  } while (cursor !== undefined);
  return report;
}

/**
 * Expire what is due in one run: each call whose deadline passed and that nobody decided is
 * answered with a decision `by: "timeout"`, approved false, reason "approval expired", appended
 * under the seq lock. A person's decision that took the seq first wins: the call is then decided
 * and the expiry writes nothing for it (and a person's decision that comes second is refused as
 * a second decision). Once nothing waits any more, the run goes on (`resumed` by `timeout`), as
 * after a person's last decision; a pass that died between the two completes it next time.
 */
export async function expireRun(
  deps: ControlDeps,
  runId: string,
  staleAfterMs: number = DEFAULTS.staleAfterMs,
): Promise<RunExpiry> {
  let facts: LogFacts;
  try {
    facts = viewFacts(deps, runId, await readTail(deps, runId));
  } catch (error) {
    // A malformed log expires nothing: resume-point and the viewer say what is wrong with it.
    if (error instanceof CorruptEventError) return { callIds: [] };
    throw error;
  }
  const now = deps.clock.now().getTime();
  const callIds: string[] = [];
  for (const { call } of dueApprovals(facts, now)) {
    const wrote = await writeNext<boolean>(deps, runId, "any", (_events, latest) => {
      // Under the lock: still undecided and due (a person may have decided, the run moved on).
      if (!dueApprovals(latest, now).some((due) => due.call.id === call.id)) return { done: false };
      return {
        append: {
          type: "tool_decided",
          callId: call.id,
          approved: false,
          by: DECIDED_BY_TIMEOUT,
          reason: APPROVAL_EXPIRED,
        },
        result: () => true,
      };
    });
    if (wrote) {
      callIds.push(call.id);
      facts = viewFacts(deps, runId, await readTail(deps, runId));
    }
  }
  const expired = goesOnAfterExpiry(facts);
  if (!expired && !decidedLongAgo(facts, now, staleAfterMs)) return { callIds };
  try {
    const result = resumeResult(
      await openGeneration(
        deps,
        expired ? { kind: "resume", runId, by: RESUMED_BY.timeout } : { kind: "sweep", runId },
      ),
    );
    return result.resumed ? { callIds, generation: result.generation } : { callIds };
  } catch (error) {
    // A person's last decision (or a resume) got there first, or a cancel: theirs stands.
    if (benignReason(error) !== undefined) return { callIds };
    throw error;
  }
}

/**
 * Whether a person's last decision has waited `staleAfterMs` for the resume their own request
 * makes right after writing it: that request died in between (a crash, a model it could not build
 * where it ran), and the run, its head still `paused`, would wait for nobody. The sweep goes on.
 */
function decidedLongAgo(facts: LogFacts, now: number, staleAfterMs: number): boolean {
  const last = facts.last;
  if (last?.type !== "tool_decided" || last.by === DECIDED_BY_TIMEOUT) return false;
  return now - Date.parse(last.at) >= staleAfterMs && classifyFacts(facts).resumable;
}

/**
 * Whether an expiry is what the run waits on to go on: the latest event is an expiry's decision
 * and the batch waits for nothing more. After a person's decision, their own request resumes.
 */
function goesOnAfterExpiry(facts: LogFacts): boolean {
  const last = facts.last;
  if (last?.type !== "tool_decided" || last.by !== DECIDED_BY_TIMEOUT) return false;
  return classifyFacts(facts).resumable;
}
