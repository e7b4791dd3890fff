import { ConflictError, IdempotencyKeyReusedError, IdTakenError } from "../core/errors.ts";
import type { Principal } from "../core/principal.ts";
import { cancelRun } from "../steps/cancel.ts";
import { decide } from "../steps/decide.ts";
import { forkRun } from "../steps/fork.ts";
import { outcomeOfGeneration } from "../steps/outcome.ts";
import { redrive } from "../steps/redrive.ts";
import { resumeRun } from "../steps/resume.ts";
import { startRun } from "../steps/start.ts";
import { sweep } from "../steps/sweep.ts";
import { keyedForkId } from "./keyedIds.ts";
import {
  type ReplayBatchReport,
  type ReplayBatchRequest,
  type ReplayBatchStarted,
  replayBatchReport,
  startReplayBatch,
} from "./replayBatch.ts";
import { compareRuns, type RunComparison } from "./replayCompare.ts";
import { type RunlogDeps, RunReads } from "./runReads.ts";
import type {
  Actor,
  ControlOptions,
  ForkRequest,
  ForkResult,
  RedriveReport,
  RedriveRequest,
  ResumeOutcome,
  ResumeRequest,
  RunOutcome,
  StartRequest,
  StartResult,
  SweepOptions,
  SweepReport,
} from "./types.ts";
import * as check from "./validateOptions.ts";

export {
  type InCharge,
  type ResumePointAnswer,
  type RunlogDeps,
  RunReads,
} from "./runReads.ts";

/**
 * The library API: everything the CLI, the HTTP API and programs do with runs.
 * Each call reads the log; nothing here keeps state of its own.
 */
export class Runlog extends RunReads<RunlogDeps> {
  /**
   * This API as one caller sees it: its own runs only (its tenant's, with a tenant; every run for
   * an admin). Another owner's run is a NotFoundError, as a missing one; new runs record the
   * principal as their owner; decisions, cancels and resumes record it as the actor, and the
   * names a request gives as `onBehalfOf`; sweep and redrive are an admin's (ForbiddenError).
   */
  as(principal: Principal): Runlog {
    const given = check.object(principal, "principal");
    check.text(given.id, "principal.id");
    check.optionalText(given.tenant, "principal.tenant");
    check.optionalBoolean(given.admin, "principal.admin");
    return new Runlog(this.deps, principal);
  }

  /**
   * A recorded run against its replay (or any two runs): what differs, and each one's turns,
   * tokens and cost (priced with this runlog's price table). Both are read in this scope.
   */
  compare(runId: string, replayRunId: string): Promise<RunComparison> {
    check.runId(runId);
    check.runId(replayRunId);
    return compareRuns(this, runId, replayRunId, this.deps.prices);
  }

  /** Start a run and execute it; returns once this execution ends. */
  async start<Output = string>(request: StartRequest): Promise<StartResult<Output>> {
    const given = check.object(request, "request");
    check.string(given.agent, "agent");
    check.text(given.input, "input");
    check.optionalString(given.model, "model");
    check.optionalRunId(given.runId, "runId");
    check.optionalMetadata(given.metadata, "metadata");
    check.optionalLimits(given.limits);
    check.optionalModelSettings(given.modelSettings);
    const owner = this.access.ownerFor(check.optionalOwner(given.owner, "owner"));
    const { owner: _, ...rest } = request;
    const { runId, created } = await startRun(this.deps, { ...rest, ...(owner ? { owner } : {}) });
    return { ...(await this.outcome<Output>(runId)), created };
  }

  /** Continue a run from its resume point; a run with nothing to resume is answered with its outcome. */
  async resume<Output = string>(request: ResumeRequest): Promise<ResumeOutcome<Output>> {
    const given = check.object(request, "request");
    const runId = check.runId(given.runId);
    check.optionalString(given.model, "model");
    check.optionalString(given.input, "input");
    check.optionalString(given.by, "by");
    check.optionalText(given.actor, "actor");
    check.optionalText(given.onBehalfOf, "onBehalfOf");
    check.optionalLimits(given.limits);
    check.optionalModelSettings(given.modelSettings);
    await this.access.check(runId);
    const { actor: _, onBehalfOf: __, ...rest } = request;
    const who = this.access.actorOf(request);
    // A scoped caller resumes as a person, whatever kind it names: the kinds steer automatic recovery.
    const by = this.access.principal === undefined ? rest.by : undefined;
    const { by: ___, ...asked } = rest;
    const result = await resumeRun(this.deps, {
      ...asked,
      runId,
      ...who,
      ...(by === undefined ? {} : { by }),
    });
    // Nothing to resume: the log's own state, even while the last executor is still giving back its lease.
    const outcome = result.resumed
      ? await this.outcome<Output>(request.runId)
      : ((await this.resting(request.runId)) as RunOutcome<Output>);
    return { ...outcome, resume: result };
  }

  /**
   * Continue a run (completed or not) with a new user message in the same run; an idempotency key
   * makes a retry send nothing and answer as the first send did. A run cancelled, malformed or
   * waiting for the child runs of its sub-agent calls takes none: an error saying why, nothing written.
   */
  async send<Output = string>(
    runId: string,
    message: string,
    options?: ControlOptions,
  ): Promise<RunOutcome<Output>> {
    check.runId(runId);
    check.text(message, "message");
    const keyed = check.controlOptions(options);
    await this.access.check(runId);
    // resumeRun stops a finished run's retention clock before anything is written to it again.
    const result = await resumeRun(this.deps, {
      runId,
      input: message,
      ...this.access.actorOf({}),
      ...keyed,
    });
    if (!result.resumed) {
      throw new ConflictError(`run ${runId} takes no more messages: ${result.classification.description}`, {
        runId,
      });
    }
    // The same keyed message again, after the run went on with others: the answer it got then.
    const then = result.opened
      ? undefined
      : outcomeOfGeneration(runId, await this.events(runId), result.generation);
    return (then as RunOutcome<Output> | undefined) ?? this.outcome<Output>(runId);
  }

  /** Copy a run's log up to a seq into a new run and go on from there; the parent is never changed. */
  async fork<Output = string>(request: ForkRequest): Promise<ForkResult<Output>> {
    const given = check.object(request, "request");
    check.runId(given.runId);
    check.optionalNumber(given.atSeq, "atSeq");
    check.optionalString(given.input, "input");
    check.optionalRunId(given.forkId, "forkId", "fork id");
    check.optionalString(given.model, "model");
    const key = check.optionalIdempotencyKey(given.idempotencyKey, "idempotencyKey");
    check.optionalModelSettings(given.modelSettings);
    await this.access.check(request.runId);
    // A key with no id chosen names the fork: the same key on the same run is the same fork.
    const keyed = request.forkId === undefined && key !== undefined;
    const forkId = keyed ? keyedForkId(request.runId, key) : request.forkId;
    try {
      const { forkId: made } = await forkRun(this.deps, {
        ...request,
        ...(forkId === undefined ? {} : { forkId }),
      });
      return this.outcome<Output>(made);
    } catch (error) {
      // The fork's id is the key's: another fork under it is this key used for another request.
      // An id the caller chose that is taken stays what it is, whatever key came with it.
      if (!keyed || !(error instanceof IdTakenError)) throw error;
      throw new IdempotencyKeyReusedError(key, error.differences, { runId: error.id, cause: error });
    }
  }

  /** Approve a call waiting for a decision; the last decision resumes the run. */
  approve<Output = string>(
    runId: string,
    callId: string,
    actor: Actor,
    options?: ControlOptions,
  ): Promise<RunOutcome<Output>> {
    return this.decide<Output>(runId, callId, true, actor, options);
  }

  /** Reject a call waiting for a decision; the model is told, and the last decision resumes the run. */
  reject<Output = string>(
    runId: string,
    callId: string,
    actor: Actor,
    options?: ControlOptions,
  ): Promise<RunOutcome<Output>> {
    return this.decide<Output>(runId, callId, false, actor, options);
  }

  /** Cancel a run: whoever executes it stops at its next step without writing more. */
  async cancel<Output = string>(
    runId: string,
    actor: Actor,
    options?: ControlOptions,
  ): Promise<RunOutcome<Output>> {
    check.runId(runId);
    const recorded = this.access.recorded(check.actor(actor));
    const keyed = check.controlOptions(options);
    await this.access.check(runId);
    await cancelRun(this.deps, { runId, ...recorded, ...keyed });
    return this.outcome<Output>(runId);
  }

  /**
   * Start a replay batch (docs/guides/replay.md): each recorded run's first input again, on
   * `model`, as run `<batchId>.<i>`, each executing on its own. Every run, agent and the model are
   * checked before the first replay starts; read the outcome with {@link Runlog.replayReport}.
   */
  startReplays(request: ReplayBatchRequest): Promise<ReplayBatchStarted> {
    const checks = {
      model: (spec: string) => this.deps.models(spec),
      agent: (name: string) => this.deps.agents(name),
    };
    return startReplayBatch(this, checks, request);
  }

  /** A replay batch's report, compared on read; a replay waiting with recorded inputs left is sent the next. */
  replayReport(batchId: string): Promise<ReplayBatchReport> {
    return replayBatchReport(this, batchId, this.deps.prices);
  }

  /** Resume runs left `running` by an executor that is gone, within the automatic-resume limits. */
  async sweep(options: SweepOptions = {}): Promise<SweepReport> {
    const given = check.object(options, "options");
    for (const name of ["staleAfterMs", "maxAutoResumes", "backoffMs", "maxBackoffMs"] as const) {
      check.optionalInteger(given[name], name, 0);
    }
    check.optionalInteger(given.maxRuns, "maxRuns", 1);
    check.optionalInteger(given.budgetMs, "budgetMs", 0);
    check.optionalInteger(given.concurrency, "concurrency", 1);
    check.optionalText(given.cursor, "cursor");
    check.optionalStatuses(given.statuses, "statuses", "list");
    this.access.adminOnly("sweep");
    return sweep(this.deps, options);
  }

  /**
   * After an outage: resume every run that ended `failed` for a retryable reason (a connection
   * error, a 429, a 5xx), at a bounded rate, and say what became of each. A run whose request was
   * rejected would fail again: it is left as it is.
   */
  async redrive(request: RedriveRequest = {}): Promise<RedriveReport> {
    const given = check.object(request, "request");
    check.optionalInteger(given.sinceMs, "sinceMs", 1);
    check.optionalString(given.agent, "agent");
    check.optionalBoolean(given.dryRun, "dryRun");
    check.optionalInteger(given.concurrency, "concurrency", 1);
    check.optionalInteger(given.perSecond, "perSecond", 1);
    this.access.adminOnly("redrive");
    // Only what a caller may ask for: the automatic policy's options are the sweeper function's.
    const { sinceMs, agent, dryRun, concurrency, perSecond } = request;
    const asked = { sinceMs, agent, dryRun, concurrency, perSecond };
    return redrive(
      this.deps,
      Object.fromEntries(Object.entries(asked).filter(([, value]) => value !== undefined)),
    );
  }

  private async decide<Output>(
    runId: string,
    callId: string,
    approved: boolean,
    actor: Actor,
    options: ControlOptions | undefined,
  ): Promise<RunOutcome<Output>> {
    check.runId(runId);
    check.text(callId, "callId");
    const recorded = this.access.recorded(check.actor(actor));
    const keyed = check.controlOptions(options);
    await this.access.check(runId);
    await decide(this.deps, { runId, callId, approved, ...recorded, ...keyed });
    return this.outcome<Output>(runId);
  }
}
