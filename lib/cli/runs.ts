import type { Runlog } from "../api/runlog.ts";
import type { RunReads } from "../api/runReads.ts";
import type {
  ControlOptions,
  ForkRequest,
  RedriveReport,
  RedriveRequest,
  ResumeRequest,
  RunOutcome,
  StartRequest,
  SweepOptions,
  SweepReport,
} from "../api/types.ts";
import {
  headView,
  outcomeView,
  type ResumePointView,
  type ResumeView,
  resumePointView,
  resumeView,
} from "../api/views.ts";
import type { RunEvent } from "../core/events.ts";
import type { RunStatus } from "../core/status.ts";
import type { JsonValue } from "../core/structuredOutput.ts";
import { localPrincipal } from "../runtime/local/localPrincipal.ts";

/** A run as `ls` lists it (what GET /runs answers): its head without the lease. */
export type ListedRun = ReturnType<typeof headView>;

/** Who decides or cancels: `--by` (whom for) and `--reason`; the actor itself is whoever runs the CLI. */
export interface CliActor {
  by?: string;
  reason?: string;
}

/** What `ls` filters on. */
export interface RunFilter {
  status?: RunStatus;
  /** Only the forks of this run. */
  parent?: string;
  /** Only the child runs of this run's sub-agent calls. */
  childrenOf?: string;
}

/**
 * The runs a CLI command reads and steers, in the shapes the HTTP API answers (lib/api/views.ts),
 * so a command prints the same whether the runs are in a store it opened (localRuns) or behind
 * an API it calls (remoteRuns, `--url`). Calls that change a run return once the run has settled
 * (completed, paused, failed …), as the library's do.
 */
export interface CliRuns {
  start(request: StartRequest): Promise<{ outcome: RunOutcome<JsonValue>; created: boolean }>;
  /** The resume's view, and when it resumed nothing, why in words. */
  resume(request: ResumeRequest): Promise<{ view: ResumeView; description?: string }>;
  resumePoint(runId: string): Promise<ResumePointView>;
  /** Every event of a run, whole. */
  events(runId: string): Promise<RunEvent[]>;
  /** One page of runs, newest activity first; `cursor` for the next. */
  list(filter: RunFilter, cursor?: string): Promise<{ runs: ListedRun[]; cursor?: string }>;
  send(runId: string, message: string, options: ControlOptions): Promise<RunOutcome<JsonValue>>;
  fork(request: ForkRequest): Promise<RunOutcome<JsonValue>>;
  decide(
    runId: string,
    callId: string,
    approved: boolean,
    actor: CliActor,
    options: ControlOptions,
  ): Promise<RunOutcome<JsonValue>>;
  cancel(runId: string, actor: CliActor, options: ControlOptions): Promise<RunOutcome<JsonValue>>;
  sweep(options: SweepOptions): Promise<SweepReport>;
  redrive(request: RedriveRequest): Promise<RedriveReport>;
}

/** What the read commands (ls, show, resume-point, script) ask of runs: nothing that changes one. */
export type ReadRuns = Pick<CliRuns, "resumePoint" | "events" | "list">;

/**
 * The reads of runs a store this process opened holds (openLocalReads' RunReads, or a whole
 * Runlog), their answers as views.
 */
export function localReads(reads: RunReads): ReadRuns {
  return {
    resumePoint: async (runId) => resumePointView(await reads.resumePoint(runId)),
    events: (runId) => reads.events(runId),
    async list(filter, cursor) {
      const page = await reads.list({ ...filter, ...(cursor === undefined ? {} : { cursor }) });
      return { runs: page.runs.map(headView), ...(page.cursor === undefined ? {} : { cursor: page.cursor }) };
    },
  };
}

/**
 * The runs of a store this process opened: the library's Runlog, its answers as views. The local
 * user acts (localPrincipal): `by` when no `--by` names someone else.
 */
export function localRuns(runlog: Runlog): CliRuns {
  const acting = ({ by, reason }: CliActor) => ({
    by: by ?? localPrincipal().id,
    ...(reason === undefined ? {} : { reason }),
  });
  return {
    async start(request) {
      const started = await runlog.start(request);
      return { outcome: outcomeView(started), created: started.created };
    },
    async resume(request) {
      const outcome = await runlog.resume(request);
      const result = outcome.resume;
      return {
        view: resumeView(outcome),
        ...(result.resumed ? {} : { description: result.classification.description }),
      };
    },
    ...localReads(runlog),
    send: async (runId, message, options) => outcomeView(await runlog.send(runId, message, options)),
    fork: async (request) => outcomeView(await runlog.fork(request)),
    decide: async (runId, callId, approved, actor, options) =>
      outcomeView(
        approved
          ? await runlog.approve(runId, callId, acting(actor), options)
          : await runlog.reject(runId, callId, acting(actor), options),
      ),
    cancel: async (runId, actor, options) => outcomeView(await runlog.cancel(runId, acting(actor), options)),
    sweep: (options) => runlog.sweep(options),
    redrive: (request) => runlog.redrive(request),
  };
}
