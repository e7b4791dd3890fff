import { classifyFacts, type NotResumable, type ResumePoint } from "../core/classify.ts";
import { ConflictError, CorruptEventError, NotFoundError } from "../core/errors.ts";
import type { RunEvent } from "../core/events.ts";
import type { LogView } from "../core/log.ts";
import { restingStatusOf } from "../core/status.ts";
import type { RunHead, RunPage } from "../ports/eventStore.ts";
import type { Ids } from "../ports/runtime.ts";
import { cancelRun } from "../steps/cancel.ts";
import { decide } from "../steps/decide.ts";
import type { ControlDeps } from "../steps/deps.ts";
import { outcomeOfFacts } from "../steps/finish.ts";
import { forkRun } from "../steps/fork.ts";
import { leaseIsLive } from "../steps/liveness.ts";
import { readTail, viewFacts } from "../steps/logReads.ts";
import { redrive } from "../steps/redrive.ts";
import { resumeRun } from "../steps/resume.ts";
import { startRun } from "../steps/start.ts";
import { sweep } from "../steps/sweep.ts";
import type { EventPageRequest, EventsPage } from "./eventPage.ts";
import { assertRunFound, readEventPage, readOneEvent } from "./eventReads.ts";
import { planResume, type ResumePlan } from "./resumePlan.ts";
import type {
  Actor,
  ForkRequest,
  ForkResult,
  ListRequest,
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
import * as check from "./validate.ts";

export type RunlogDeps = ControlDeps & { ids: Ids };

/**
 * What resuming would do (its interrupted calls split into those run again and those answered as
 * interrupted), or why there is none; `running` when a live executor holds the run.
 */
export type ResumePointAnswer =
  | ResumePlan
  | NotResumable
  | { resumable: false; reason: "running"; description: string };

/**
 * The library API: everything the CLI, the HTTP API and programs do with runs.
 * Each call reads the log; nothing here keeps state of its own.
 */
export class Runlog {
  /** @internal openLocal, createTestRunlog and the functions make a Runlog; a program asks them for one. */
  constructor(private readonly deps: RunlogDeps) {}

  /** Start a run and execute it; returns once this execution ends. */
  async start(request: StartRequest): Promise<StartResult> {
    const given = check.object(request, "request");
    check.string(given.agent, "agent");
    check.text(given.input, "input");
    check.optionalString(given.model, "model");
    check.optionalRunId(given.runId, "runId");
    const { runId, created } = await startRun(this.deps, request);
    return { ...(await this.outcome(runId)), created };
  }

  /** Continue a run from its resume point; a run with nothing to resume is answered with its outcome. */
  async resume(request: ResumeRequest): Promise<ResumeOutcome> {
    const given = check.object(request, "request");
    const runId = check.runId(given.runId);
    check.optionalString(given.model, "model");
    check.optionalString(given.input, "input");
    check.optionalString(given.by, "by");
    const result = await resumeRun(this.deps, { ...request, runId });
    // Nothing to resume: the log's own state, even while the last executor is still giving back its lease.
    const outcome = result.resumed ? await this.outcome(request.runId) : await this.resting(request.runId);
    return { ...outcome, resume: result };
  }

  /** Continue a run (completed or not) with a new user message in the same run. */
  async send(runId: string, message: string): Promise<RunOutcome> {
    check.runId(runId);
    check.text(message, "message");
    // resumeRun stops a finished run's retention clock before anything is written to it again.
    const result = await resumeRun(this.deps, { runId, input: message });
    if (!result.resumed) {
      throw new ConflictError(`run ${runId} takes no more messages: ${result.classification.description}`, {
        runId,
      });
    }
    return this.outcome(runId);
  }

  /** Copy a run's log up to a seq into a new run and go on from there; the parent is never changed. */
  async fork(request: ForkRequest): Promise<ForkResult> {
    const given = check.object(request, "request");
    check.runId(given.runId);
    check.optionalNumber(given.atSeq, "atSeq");
    check.optionalString(given.input, "input");
    check.optionalRunId(given.forkId, "forkId", "fork id");
    const { forkId } = await forkRun(this.deps, request);
    return this.outcome(forkId);
  }

  /** Approve a call waiting for a decision; the last decision resumes the run. */
  approve(runId: string, callId: string, actor: Actor): Promise<RunOutcome> {
    return this.decide(runId, callId, true, actor);
  }

  /** Reject a call waiting for a decision; the model is told, and the last decision resumes the run. */
  reject(runId: string, callId: string, actor: Actor): Promise<RunOutcome> {
    return this.decide(runId, callId, false, actor);
  }

  /** Cancel a run: whoever executes it stops at its next step without writing more. */
  async cancel(runId: string, actor: Actor): Promise<RunOutcome> {
    check.runId(runId);
    await cancelRun(this.deps, { runId, ...check.actor(actor) });
    return this.outcome(runId);
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
    // Only what a caller may ask for: the automatic policy's options are the sweeper function's.
    const { sinceMs, agent, dryRun, concurrency, perSecond } = request;
    const asked = { sinceMs, agent, dryRun, concurrency, perSecond };
    return redrive(
      this.deps,
      Object.fromEntries(Object.entries(asked).filter(([, value]) => value !== undefined)),
    );
  }

  private async decide(runId: string, callId: string, approved: boolean, actor: Actor): Promise<RunOutcome> {
    check.runId(runId);
    check.text(callId, "callId");
    await decide(this.deps, { runId, callId, approved, ...check.actor(actor) });
    return this.outcome(runId);
  }

  /** Where the run stopped and what resuming would do; writes nothing. */
  async resumePoint(runId: string): Promise<ResumePointAnswer> {
    // The head first: an execution that ends between the two reads then shows as still running
    // (true a moment ago), never as the older log's resting state with no executor. The head and
    // the log's tail only: as fast on a 10,000-event run as on a short one.
    const head = await this.deps.store.getHead(check.runId(runId));
    // As in outcome(): no head is no run (or an expired one), whatever this process has cached.
    if (!head) throw new NotFoundError(`run ${runId} not found`, { runId });
    let tail: LogView;
    try {
      tail = await readTail(this.deps, runId);
    } catch (error) {
      if (error instanceof CorruptEventError) {
        return { resumable: false, reason: "malformed", description: error.message, seq: error.seq };
      }
      throw error;
    }
    const classification = classifyFacts(viewFacts(this.deps, runId, tail));
    if (!classification.resumable) return classification;
    if (await this.isLive(head)) {
      return {
        resumable: false,
        reason: "running",
        description: `run ${runId} is being executed by ${head.lease!.owner}`,
      };
    }
    return this.plan(head, classification);
  }

  /** The point as resume will carry it out: the tools of the run's agent say which calls run again. */
  private plan(head: RunHead, point: ResumePoint): ResumePlan {
    // Only asked when a call was interrupted: a run of an agent this process lacks still answers.
    if (point.interruptedToolCalls.length === 0) return planResume(point, () => false);
    const tools = this.deps.agents(head.agent).tools;
    return planResume(point, (name) => tools.find((tool) => tool.name === name)?.idempotent === true);
  }

  /**
   * Every event of a run, in order (after `afterSeq` when given), all in memory: for programs and
   * tests. Anything that answers over a network pages with eventPage. NotFoundError for an unknown run.
   */
  async events(runId: string, afterSeq = 0): Promise<RunEvent[]> {
    check.runId(runId);
    check.optionalInteger(afterSeq, "afterSeq", 0);
    const events = await this.deps.store.read(runId, afterSeq);
    await assertRunFound(this.deps.store, runId, afterSeq, events.length);
    return events;
  }

  /**
   * A page of a run's events that fits in `maxBytes` of JSON: at most `limit` of them, an event too
   * big for any page listed truncated, and `next` (the `after` of the next page) while the log goes on.
   */
  async eventPage(runId: string, request: EventPageRequest): Promise<EventsPage> {
    check.runId(runId);
    const given = check.object(request, "request");
    check.optionalFunction(given.href, "href");
    return readEventPage(this.deps.store, runId, request);
  }

  /** One event of a run, whole. NotFoundError when the run, or its event at `seq`, does not exist. */
  async event(runId: string, seq: number): Promise<RunEvent> {
    check.runId(runId);
    return readOneEvent(this.deps.store, runId, seq);
  }

  /** The run's status and final output; `running` while a live executor holds it (unless it was cancelled). */
  async outcome(runId: string): Promise<RunOutcome> {
    // The head before the log, for the reason resumePoint gives.
    const head = await this.deps.store.getHead(check.runId(runId));
    // No head means no run (getHead rebuilds a missing one from the log), or one whose retention
    // passed: never answered from a log this process still has cached.
    if (!head) throw new NotFoundError(`run ${runId} not found`, { runId });
    const resting = await this.resting(runId);
    if (resting.status === "cancelled") return resting;
    if (await this.isLive(head)) return { runId, status: "running", output: null };
    return resting;
  }

  /** The status and output the log's tail shows, whoever may be executing the run. */
  private async resting(runId: string): Promise<RunOutcome> {
    const tail = await readTail(this.deps, runId);
    return outcomeOfFacts(runId, tail.events, viewFacts(this.deps, runId, tail));
  }

  /**
   * Runs by last update, a page at a time. A `running` head lags its log by design (appends do not
   * touch it), so each one shows its log's last seq and last activity, read from the tail (one
   * bounded read, never the log); one whose executor is gone shows the status its tail rests in.
   * With `status`, only runs shown in it (a page may then hold fewer than `limit`); with `parent`,
   * only the forks of that run.
   */
  async list(options: ListRequest = {}): Promise<RunPage> {
    const given = check.object(options, "options");
    check.optionalInteger(given.limit, "limit", 1);
    check.optionalString(given.cursor, "cursor");
    check.optionalStatuses(given.status, "status", "one or more");
    check.optionalString(given.parent, "parent");
    const wanted = options.status === undefined ? undefined : [options.status].flat();
    // The store filters by the head's status, and a `running` head whose executor is gone shows
    // the status its log rests in: a killed run is `interrupted` (or `completed`, …) to the reader.
    // So `running` heads are read for any status asked for, and kept by the status they show.
    const stored =
      wanted === undefined || wanted.includes("running") ? wanted : [...wanted, "running" as const];
    const page = await this.deps.store.listRuns({
      ...options,
      ...(stored === undefined ? {} : { status: stored }),
    });
    const runs: RunHead[] = [];
    for (const head of page.runs) runs.push(head.status === "running" ? await this.asLogShows(head) : head);
    const shown = wanted === undefined ? runs : runs.filter((run) => wanted.includes(run.status));
    return { ...page, runs: shown };
  }

  /** A `running` head brought up to its log's tail: last seq, last activity, and status if nobody executes it. */
  private async asLogShows(head: RunHead): Promise<RunHead> {
    let tail: LogView;
    try {
      tail = await readTail(this.deps, head.runId);
    } catch (error) {
      // As resume-point answers it: a log that cannot be read rests as malformed.
      if (error instanceof CorruptEventError) return { ...head, status: "malformed" };
      throw error;
    }
    const last = tail.events.at(-1)!;
    const updatedAt = Date.parse(last.at) > Date.parse(head.updatedAt) ? last.at : head.updatedAt;
    const shown = { ...head, lastSeq: Math.max(head.lastSeq, last.seq), updatedAt };
    if (await this.isLive(head)) return shown;
    const facts = viewFacts(this.deps, head.runId, tail);
    return { ...shown, status: restingStatusOf(facts, classifyFacts(facts)) };
  }

  /** The one liveness check (lib/steps/liveness.ts), as resume and the sweeper ask it. */
  private isLive(head: RunHead): Promise<boolean> {
    return leaseIsLive(this.deps, head.lease);
  }
}
