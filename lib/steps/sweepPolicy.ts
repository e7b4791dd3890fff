/*
 * What a sweep is asked and what it answers for one run: its options, their defaults, and the
 * outcome of one candidate (lib/steps/sweep.ts goes through the candidates, sweepCandidate.ts judges one).
 */
import type { ResumeKind } from "../core/eventFields.ts";
import type { RunStatus } from "../core/status.ts";

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

export const DEFAULTS = {
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
export type Policy = typeof DEFAULTS;

/** A candidate's outcome, and whether it now waits for a person (or rests) rather than for recovery. */
export type Considered = SweepOutcome & { settled?: true };
