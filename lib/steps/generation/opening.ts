import { assertNever } from "../../core/assertNever.ts";
import type { Limits } from "../../core/budget.ts";
import type { NotResumable, ResumePoint } from "../../core/classify.ts";
import { RESUMED_BY } from "../../core/eventConstants.ts";
import type { ResumeKind } from "../../core/eventFields.ts";
import type { RunEvent, RunStarted } from "../../core/events.ts";
import type { ModelSettings } from "../../core/modelSettings.ts";

/** The authenticated caller behind a person's opening, and whom it said it acted for: both go on the `resumed`. */
export interface Who {
  actor?: string;
  onBehalfOf?: string;
}

/**
 * What opens a generation of a run: everything that makes a run execute (again). Each kind says
 * what it carries onto the event that opens the generation (`run_started`, or `resumed`).
 */
export type Opening =
  /** A new run: `run_started` (with the lease) opens generation 1. */
  | { kind: "start"; first: RunStarted }
  /**
   * A fork that goes on: its `copy` (the parent's events after `first`, ending at the `resumed`
   * of `generation` that opens the fork) is written before `first` creates the run.
   */
  | {
      kind: "fork";
      first: RunStarted;
      copy: readonly RunEvent[];
      generation: number;
      point: ResumePoint;
    }
  /** Go on from where the log stands; `by` is recorded (RESUMED_BY, or a caller's own name). */
  | ({
      kind: "resume";
      runId: string;
      by: string;
      model?: string;
      limits?: Limits;
      modelSettings?: ModelSettings;
    } & Who)
  /** Go on with a new user message; `idempotencyKey` goes on the `resumed` it writes. */
  | ({
      kind: "send";
      runId: string;
      by: string;
      input: string;
      model?: string;
      idempotencyKey?: string;
      limits?: Limits;
      modelSettings?: ModelSettings;
    } & Who)
  /** The last decision on a paused run: a person's resume. */
  | ({ kind: "decide"; runId: string } & Who)
  /** An automatic resume of a run whose executor died. */
  | { kind: "sweep"; runId: string }
  /**
   * An execution that did its share of steps hands the run on: `owner` is the lease owner it
   * runs under (it holds the lease and passes it on), `generation` the one it executes.
   */
  | { kind: "handoff"; runId: string; owner: string; generation: number };

/** The openings that create their run. Retried, they only complete what the first attempt opened. */
export type Creation = Extract<Opening, { kind: "start" | "fork" }>;

/** The openings that move an existing run to its next generation with a `resumed` event. */
export type Move = Exclude<Opening, Creation>;

/** What opening a generation came to. Refusals (a live holder, a cancel, a newer generation) are thrown. */
export type Outcome =
  /** The request created the run and started its first generation's execution. */
  | { kind: "created"; runId: string; generation: number; resumeKind: ResumeKind }
  /** The request appended the `resumed` of a new generation and started its execution. */
  | { kind: "opened"; runId: string; generation: number; resumeKind: ResumeKind }
  /**
   * The generation this request would open was opened already (by its own earlier attempt, or by
   * an equal request) and never executed: the request started its execution.
   */
  | { kind: "completed"; runId: string; generation: number; resumeKind: ResumeKind }
  /** A retried creation found its generation opened and being executed by `holder`. */
  | { kind: "in_progress"; runId: string; generation: number; resumeKind: ResumeKind; holder: string }
  /** A retried creation found the run gone on since: it stands at `generation`, resumable, and nothing was opened. */
  | { kind: "went_on"; runId: string; generation: number; resumeKind: ResumeKind }
  /** A retried handoff found the next generation opened already and under way: nothing left to do. */
  | { kind: "handed_over"; runId: string; generation: number }
  /** The log is at a point nothing goes on from: nothing was written or started. */
  | { kind: "not_resumable"; runId: string; classification: NotResumable };

/** The run an opening is about. */
export const runIdOf = (opening: Opening): string =>
  opening.kind === "start" || opening.kind === "fork" ? opening.first.runId : opening.runId;

/** Who the `resumed` event of this opening says moved the run. */
export function byOf(opening: Move): string {
  switch (opening.kind) {
    case "resume":
    case "send":
      return opening.by;
    case "decide":
      return RESUMED_BY.person;
    case "sweep":
      return RESUMED_BY.sweeper;
    case "handoff":
      return RESUMED_BY.handoff;
    default:
      return assertNever(opening);
  }
}

/** The caller (and whom it acted for) the `resumed` event of this opening records; none for automatic ones. */
export function whoOf(opening: Move): Who {
  if (opening.kind !== "resume" && opening.kind !== "send" && opening.kind !== "decide") return {};
  return {
    ...(opening.actor === undefined ? {} : { actor: opening.actor }),
    ...(opening.onBehalfOf === undefined ? {} : { onBehalfOf: opening.onBehalfOf }),
  };
}

/** The new user message the opening carries, if any. */
export const inputOf = (opening: Move): string | undefined =>
  opening.kind === "send" ? opening.input : undefined;

/** The caller's idempotency key the opening records on its `resumed`, if any. */
export const keyOf = (opening: Move): string | undefined =>
  opening.kind === "send" ? opening.idempotencyKey : undefined;

/** The model the opening asks to go on with, if any. */
export const modelAsked = (opening: Move): string | undefined =>
  opening.kind === "send" || opening.kind === "resume" ? opening.model : undefined;

/** The limits the opening raises, if any (a person's resume or message). */
export const limitsAsked = (opening: Move): Limits | undefined =>
  opening.kind === "send" || opening.kind === "resume" ? opening.limits : undefined;

/** The model settings the opening changes, if any (a person's resume or message). */
export const settingsAsked = (opening: Move): ModelSettings | undefined =>
  opening.kind === "send" || opening.kind === "resume" ? opening.modelSettings : undefined;

/**
 * The same request without its message: what is left to do once the generation that carried the
 * message has run (the message is in the log already and must not be repeated).
 */
export function withoutInput(opening: Move): Move {
  if (opening.kind !== "send") return opening;
  const { runId, by, model, limits, modelSettings } = opening;
  return {
    kind: "resume",
    runId,
    by,
    ...whoOf(opening),
    ...(model === undefined ? {} : { model }),
    ...(limits === undefined ? {} : { limits }),
    ...(modelSettings === undefined ? {} : { modelSettings }),
  };
}

/** A retried creation goes on, if it must open anything, as a person's plain resume. */
export const resumeOf = (runId: string): Move => ({ kind: "resume", runId, by: RESUMED_BY.person });
