/*
 * The sweep's judgement of one run: whether its executor is gone, what its tail says, and whether
 * it is resumed now, later, or rests; also the same judgement for one run known to have failed.
 */
import { classifyFacts } from "../core/classify.ts";
import { CorruptEventError } from "../core/errors.ts";
import type { RunEvent } from "../core/events.ts";
import type { LogView } from "../core/log.ts";
import { restingStatusOf } from "../core/status.ts";
import type { RunHead } from "../ports/eventStore.ts";
import { countedAutoResumes, finishesOwnResume, nextAutoResumeAt } from "./autoResumes.ts";
import type { ControlDeps } from "./deps.ts";
import { lastWriteAt, openedGeneration } from "./generation/opened.ts";
import { leaseIsLive } from "./liveness.ts";
import { loadRun, readTail, viewFacts } from "./logReads.ts";
import { markGivenUp, markPaused, tailReader } from "./restMarkers.ts";
import { answerParent } from "./subagents/answer.ts";
import { lookUpChildren } from "./subagents/lookUp.ts";
import { neverExecuted, rest, resumeAs } from "./sweepActions.ts";
import {
  type Considered,
  DEFAULTS,
  type Policy,
  type SweepOptions,
  type SweepOutcome,
} from "./sweepPolicy.ts";

/** Reasons a run waits for someone (not an ending): nothing to tell a parent. */
const WAITS = new Set(["awaiting_approval", "awaiting_children", "budget_exhausted"]);

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

export async function consider(
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
    if (classification.reason === "awaiting_children") {
      await lookUpChildren(deps, runId);
      // Its children, resumed or answered, may have carried it on: the report says where it is now.
      const status = (await deps.store.getHead(runId))?.status;
      if (status !== undefined && status !== "waiting")
        return settle(`was awaiting_children: its children were looked up and it went on (now ${status})`);
    }
    return settle(`not resumable: ${classification.reason}`);
  }
  // Every resume of the sweeper's counts against the budget, the completion of a generation opened
  // and never executed too (resumeAs completes it rather than opening another): a run whose
  // execution dies before its first write, every time, is given up, not resumed for ever
  // (countedAutoResumes). Heads of runs swept before the count moved onto the head carry none:
  // theirs starts at 0.
  const opener = openedGeneration(tail, facts);
  const record = countedAutoResumes(head.autoResumes, lastWriteAt(tail), opener !== undefined);
  const count = record?.count ?? 0;
  // Completing an opening (its opener died, or its start failed) waits for no back-off: it opens
  // nothing, and a sweep retried after dying between its claim and its execution goes on at once;
  // finishing the sweeper's own resume is that resume, already counted, so the budget allows it.
  const completes = opener !== undefined && (await neverExecuted(deps, head));
  const finishesOwn = completes && finishesOwnResume(head.autoResumes, opener);
  if (count >= policy.maxAutoResumes && !finishesOwn) {
    // Resting, the run leaves the `running` heads: later sweeps do not read it again. It rests as
    // `interrupted` whatever its tail (even a failed model call): waiting for a person, not final.
    // The log says so first (`given_up`, once: a later sweep meeting the rested run finds it there).
    const marked = await markGivenUp(deps, runId, count, reread(tail));
    await rest(deps, head, "interrupted", marked ?? lastSeq, facts.agent);
    deps.observer?.gaveUp?.(runId, count);
    return settle(`gave up after ${count} resumes since the latest message; resume it by hand`);
  }
  const due = completes ? undefined : nextAutoResumeAt(record, policy);
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
