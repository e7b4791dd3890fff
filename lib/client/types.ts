/**
 * What the client sends and gets back, taken from the schemas the HTTP routes validate with
 * (lib/http/schemas.ts) and the views they answer with (lib/api/views.ts): one declaration each,
 * so the client's types cannot drift from the API's.
 */
import type * as z from "zod";
import type { EventsPage } from "../api/eventPage.ts";
import type { ReplayBatchReport, ReplayBatchStarted } from "../api/replayBatch.ts";
import type { RunOutcome } from "../api/types.ts";
import type { headView, ResumePointView, ResumeView } from "../api/views.ts";
import type { RunEvent } from "../core/events.ts";
import type { ForkBody, ListQuery, ReplaysBody, ResumeBody, StartBody } from "../http/schemas.ts";

/** POST /runs: a new run of an agent. */
export type StartRunInput = z.input<typeof StartBody>;

/** What start answers: the run (`running` as it starts), and whether this request created it. */
export interface StartRunAnswer extends RunOutcome {
  /** False when the run already existed (the same Idempotency-Key or runId again): nothing was started. */
  created: boolean;
}

/** POST /runs/{id}/resume. */
export type ResumeRunInput = { runId: string } & z.input<typeof ResumeBody>;

/** What resume answers: the run's outcome, and what the resume did (or `resumed: false` with the reason: only `completed` is answered, any other dead end is thrown). */
export type ResumeRunAnswer = ResumeView;

/** POST /runs/{id}/fork. */
export type ForkRunInput = { runId: string } & z.input<typeof ForkBody>;

/** GET /runs: a page of runs. */
export type ListRunsInput = z.output<typeof ListQuery>;

/** A run as GET /runs lists it. */
export type RunView = ReturnType<typeof headView>;

/** A page of runs; `cursor` fetches the next one. */
export interface RunsPage {
  runs: RunView[];
  /** Pass back as `cursor` for the next page; absent on the last page. */
  cursor?: string;
}

/** GET /runs/{id}/events: a page of events after `after`. */
export interface EventPageInput {
  /** Events with a seq above this. @default 0 */
  after?: number;
  /** At most this many (1 to 1,000). @default 100 */
  limit?: number;
  /** Seconds to hold an empty answer for the next event (0 to 20): a long-poll. @default 0 */
  wait?: number;
}

/** A page of a run's events (an event too big for a page listed truncated, with the href of its parts). */
export type EventPageAnswer = { runId: string } & EventsPage;

/** A run's event, whole. */
export type { RunEvent };

/** Where a run would resume, or why it cannot. */
export type ResumePointAnswer = ResumePointView;

/** Who decides or cancels, and why. */
export interface ActorInput {
  /** Whom the caller acts for, recorded as `onBehalfOf` beside the authenticated caller. @default the caller */
  by?: string;
  /** Why, recorded on the event. @default none */
  reason?: string;
}

/** What every call takes. */
export interface CallOptions {
  /** Give up the call (and its retries); it rejects with the signal's reason. @default none */
  signal?: AbortSignal;
}

/** What a call that changes a run takes: an Idempotency-Key makes a retry of it change nothing more. */
export interface ControlCallOptions extends CallOptions {
  /**
   * The request's Idempotency-Key (1 to 255 printable ASCII characters). The same key again
   * answers what the first request did and writes nothing. @default a new random key per call,
   * kept across the call's own retries
   */
  idempotencyKey?: string;
}

/** POST /runs/replays: recorded runs to replay on a model, as a batch. */
export type StartReplaysInput = z.input<typeof ReplaysBody>;

/** What starting a replay batch answers: its id and runs, and whether this request started it. */
export type StartReplaysAnswer = ReplayBatchStarted;

/** GET /replays/{batchId}: each run against its replay, compared on read. */
export type ReplayReportAnswer = ReplayBatchReport;
