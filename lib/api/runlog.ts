import { type Classification, classify } from "../core/classify.ts";
import { CorruptEventError, NotFoundError } from "../core/errors.ts";
import type { RunEvent } from "../core/events.ts";
import type { RunHead, RunPage } from "../ports/eventStore.ts";
import type { Ids } from "../ports/runtime.ts";
import type { ControlDeps } from "../steps/deps.ts";
import { outcomeOf, type RunOutcome } from "../steps/finish.ts";
import { type ResumeRequest, type ResumeResult, resumeRun } from "../steps/resume.ts";
import { type StartRequest, startRun, validateRunId } from "../steps/start.ts";

export type RunlogDeps = ControlDeps & { ids: Ids };

/** A resume point, or why there is none; `running` when a live executor holds the run. */
export type ResumePointAnswer = Classification | { resumable: false; reason: "running"; description: string };

/**
 * The library API: everything the CLI, the HTTP API and programs do with runs.
 * Each call reads the log; nothing here keeps state of its own.
 */
export class Runlog {
  constructor(private readonly deps: RunlogDeps) {}

  /** Start a run and execute it; returns once this execution ends. */
  async start(request: StartRequest): Promise<RunOutcome & { created: boolean }> {
    const { runId, created } = await startRun(this.deps, request);
    return { ...(await this.outcome(runId)), created };
  }

  /** Continue a run from its resume point; a run with nothing to resume is answered with its outcome. */
  async resume(request: ResumeRequest): Promise<RunOutcome & { resume: ResumeResult }> {
    const result = await resumeRun(this.deps, { ...request, runId: validateRunId(request.runId) });
    return { ...(await this.outcome(request.runId)), resume: result };
  }

  /** Where the run stopped and what resuming would do; writes nothing. */
  async resumePoint(runId: string): Promise<ResumePointAnswer> {
    let events: RunEvent[];
    try {
      events = await this.events(runId);
    } catch (error) {
      if (error instanceof CorruptEventError) {
        return { resumable: false, reason: "malformed", description: error.message, seq: error.seq };
      }
      throw error;
    }
    const head = await this.deps.store.getHead(runId);
    if (head && (await this.isLive(head))) {
      return {
        resumable: false,
        reason: "running",
        description: `run ${runId} is being executed by ${head.lease!.owner}`,
      };
    }
    return classify(events);
  }

  /** Every event of a run, in order (after `afterSeq` when given). NotFoundError for an unknown run. */
  async events(runId: string, afterSeq = 0): Promise<RunEvent[]> {
    const events = await this.deps.store.read(validateRunId(runId), afterSeq);
    if (events.length === 0 && (afterSeq === 0 || !(await this.deps.store.getHead(runId)))) {
      throw new NotFoundError(`run ${runId} not found`);
    }
    return events;
  }

  /** The run's status and final output; `running` while a live executor holds it. */
  async outcome(runId: string): Promise<RunOutcome> {
    const events = await this.events(runId);
    const head = await this.deps.store.getHead(runId);
    if (head && (await this.isLive(head))) return { runId, status: "running", output: null };
    return outcomeOf(runId, events);
  }

  /** Runs by last update, a page at a time; a `running` head whose executor died shows as `interrupted`. */
  async list(options: { limit?: number; cursor?: string } = {}): Promise<RunPage> {
    const page = await this.deps.store.listRuns(options);
    const runs: RunHead[] = [];
    for (const head of page.runs) {
      const dead = head.status === "running" && !(await this.isLive(head));
      runs.push(dead ? { ...head, status: "interrupted" } : head);
    }
    return { ...page, runs };
  }

  private async isLive(head: RunHead): Promise<boolean> {
    const lease = head.lease;
    if (!lease || lease.until <= this.deps.clock.now().getTime()) return false;
    return this.deps.orchestrator.isAlive(lease.owner);
  }
}
