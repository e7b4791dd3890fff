/**
 * What a program passes to Runlog and gets back: the public request and result shapes, defined
 * here rather than taken from the steps, so the steps may change how they work without changing
 * the API. The steps take and return the same shapes (TypeScript compares them by structure).
 */
import type { Limits } from "../core/budget.ts";
import type { NotResumable } from "../core/classify.ts";
import type { ResumeKind } from "../core/eventFields.ts";
import type { Metadata } from "../core/metadata.ts";
import type { ModelSettings } from "../core/modelSettings.ts";
import type { Owner } from "../core/principal.ts";
import type { RunStatus } from "../core/status.ts";

/** A new run of an agent. */
export interface StartRequest {
  /** The agent's name, as the agents module exports it. */
  agent: string;
  /** The user's first message. */
  input: string;
  /** A model spec (`openai:gpt-4.1-mini`, `scripted:<file>`). @default the agent's model */
  model?: string;
  /** A caller-chosen id, which makes the start idempotent: the same start again starts nothing. @default a generated id */
  runId?: string;
  /**
   * Whose the run is, recorded in `run_started`. A Runlog scoped with `as` to a principal that is
   * not an admin records its principal (naming another owner is an InvalidInputError); an admin's
   * (`openLocal`'s, the local OS user) records this one. @default none; scoped, the principal
   */
  owner?: Owner;
  /**
   * The caller's own JSON object (at most MAX_METADATA_BYTES as JSON), stored in `run_started`,
   * kept by forks and echoed on every lifecycle event of the run. @default none
   */
  metadata?: Metadata;
  /**
   * This run's budget: lower than the agent's limits, never above (an InvalidInputError naming the
   * field). Recorded in `run_started`. @default the agent's limits
   */
  limits?: Limits;
  /**
   * How this run calls the model, replacing the agent's settings named: maxOutputTokens never
   * above the agent's; a setting the model cannot honour is an InvalidInputError naming it.
   * Recorded in `run_started`, so resumes and forks call the model the same way. @default the agent's
   */
  modelSettings?: ModelSettings;
}

/**
 * Where a run stands: its status and, once it completed, its final output. `Output` is what the
 * output is for the run's agent: its text, or for an agent with an `output` schema the value the
 * schema gave (`OutputOf<typeof agent>`).
 */
export interface RunOutcome<Output = string> {
  /** The run. */
  runId: string;
  /** Its status as a reader sees it (`running` only while a live executor holds it). */
  status: RunStatus;
  /** The final answer of a completed run (its text, or the value its agent's `output` schema accepted); null until then. */
  output: Output | null;
  /** With status `invalid_output`: the last answer, which the agent's output schema rejected, and why. */
  invalidOutput?: InvalidOutput;
}

/** The final answer a run ended `invalid_output` with: its text, kept, and what was wrong with it. */
export interface InvalidOutput {
  /** The answer as the model gave it. */
  text: string;
  /** Why the schema did not accept it (the JSON error, or the schema's issues). */
  problems: string;
}

/** What start answers: the run's outcome once this execution ends. */
export interface StartResult<Output = string> extends RunOutcome<Output> {
  /** False when a run with this id and the same start already existed (nothing was executed). */
  created: boolean;
}

/** Continue a run from where it stopped. */
export interface ResumeRequest {
  /** The run. */
  runId: string;
  /** A model spec to use from here on. @default the run's model */
  model?: string;
  /** A new user message: continue the run with it (any state but cancelled or malformed). @default none: resume where it stopped */
  input?: string;
  /** Who resumes, recorded on the `resumed` event. @default "person" */
  by?: string;
  /** The caller who asks, recorded as `actor` (a scoped Runlog records its principal instead). @default none */
  actor?: string;
  /** Whom the caller says it acts for, recorded beside `actor`. @default none */
  onBehalfOf?: string;
  /**
   * Limits to go on with, replacing those named, recorded on the `resumed` event: how a
   * `budget_exhausted` run continues (the reached limit must be raised above what the run used).
   * @default the run's limits
   */
  limits?: Limits;
  /**
   * Model settings to go on with, replacing those named, recorded on the `resumed` event; within
   * what the agent allows. @default the run's recorded settings
   */
  modelSettings?: ModelSettings;
}

/** What a resume did: opened (or found opened) a new generation, or why there was nothing to resume. */
export type ResumeResult =
  | {
      resumed: true;
      /** The run. */
      runId: string;
      /** The generation that executes the run from here. */
      generation: number;
      /** What the resume continues: a user message, interrupted calls, a model call … */
      kind: ResumeKind;
      /** False when this request found its generation opened already (a retry) and only made sure it runs. */
      opened: boolean;
    }
  | {
      resumed: false;
      /** The run. */
      runId: string;
      /** Why it cannot be resumed. */
      classification: NotResumable;
    };

/** What resume answers: the run's outcome, and what the resume did. */
export interface ResumeOutcome<Output = string> extends RunOutcome<Output> {
  /** What the resume did. */
  resume: ResumeResult;
}

/** A copy of a run's log up to a seq, as a new run. */
export interface ForkRequest {
  /** The run to copy (never changed). */
  runId: string;
  /** Copy the log up to and including this seq. @default the whole log */
  atSeq?: number;
  /** Continue the fork with this user message. @default none: the fork resumes where the copy ends */
  input?: string;
  /** The new run's id, which makes the fork idempotent. @default a generated id */
  forkId?: string;
  /** A model spec the fork goes on with, another provider's included (`bedrock:…`). @default the run's */
  model?: string;
  /**
   * A key that makes the fork idempotent without choosing its id: the fork's id is derived from
   * the run and the key, and the key is recorded on its `run_started`; the same key with another
   * atSeq or input is an IdempotencyKeyReusedError. @default none
   */
  idempotencyKey?: string;
  /**
   * Model settings the fork goes on with, replacing the parent's named (a fork that does not go on
   * takes none). @default the parent's recorded settings
   */
  modelSettings?: ModelSettings;
}

/** What makes a send, a decision or a cancel safe to retry. */
export interface ControlOptions {
  /**
   * The caller's key for this request (1 to 255 printable ASCII characters), recorded on the event
   * it writes. The same key again on the run, at any time and from any process, writes nothing and
   * answers what the first request did; with a different request it is an
   * IdempotencyKeyReusedError (HTTP 409 `idempotency_key_reused`). @default none
   */
  idempotencyKey?: string;
}

/** What fork answers: the new run's outcome (`runId` is the fork's). */
export type ForkResult<Output = string> = RunOutcome<Output>;

/** Which runs list shows, a page at a time. */
export interface ListRequest {
  /** At most this many runs (1 to 1,000). @default 50 */
  limit?: number;
  /** Where the previous page ended (its `cursor`). @default the first page */
  cursor?: string;
  /** Only runs shown in this status, or in one of these (at least one). @default every status */
  status?: RunStatus | readonly RunStatus[];
  /**
   * Only the runs forked from this run (its direct forks). NotFoundError when it has none and is
   * not a run the caller can read (a deleted run's forks still list). @default every run
   */
  parent?: string;
  /**
   * Only the child runs of this run's sub-agent calls (agentAsTool), in the order they were called,
   * read from its log: one page, no cursor; `status` filters them. NotFoundError for a run the
   * caller cannot read. @default every run
   */
  childrenOf?: string;
}

// The sweep's and the redrive's options and reports are the steps' own shapes, exported as they are:
// one declaration each, so the public type cannot drift from what the step takes and returns.
export type { ExpiryReport } from "../steps/expireApprovals.ts";
export type { RedriveOutcome, RedriveReport } from "../steps/redrive.ts";
export type { SweepReport } from "../steps/sweep.ts";
export type { SweepOptions, SweepOutcome } from "../steps/sweepPolicy.ts";

/** Which failed runs a redrive resumes, and how fast. */
export interface RedriveRequest {
  /** Only runs whose head changed within this long (milliseconds). @default every failed run */
  sinceMs?: number;
  /** Only runs of this agent. @default every agent */
  agent?: string;
  /** Judge every run and report what would be done; write and start nothing. @default false */
  dryRun?: boolean;
  /** Runs resumed at the same time, at most. @default 4 */
  concurrency?: number;
  /** Resumes started per second, at most. @default 10 */
  perSecond?: number;
}

/** Who made a decision or a cancel, and why. */
export interface Actor {
  /**
   * Who: a person's name or a system's. A scoped Runlog records its principal as `by`, and this, when
   * it is another name, as `onBehalfOf`: given with `onBehalfOf` too, that is an InvalidInputError.
   */
  by: string;
  /** Whom `by` acts for, recorded beside it. @default none */
  onBehalfOf?: string;
  /** Why, recorded on the event. @default none */
  reason?: string;
}
