import type { ResumePoint } from "../core/classify.ts";
import { classifyFacts, type NotResumable } from "../core/classify.ts";
import { CorruptEventError, InvalidInputError, NotFoundError } from "../core/errors.ts";
import type { RunEvent } from "../core/events.ts";
import type { LogView } from "../core/log.ts";
import type { Principal } from "../core/principal.ts";
import { planResume, type ResumePlan } from "../core/resumePlan.ts";
import { SETTLED_BY_LOG } from "../core/status.ts";
import type { JsonValue } from "../core/structuredOutput.ts";
import type { RunHead, RunPage } from "../ports/eventStore.ts";
import type { Ids } from "../ports/runtime.ts";
import type { ControlDeps, ReadDeps } from "../steps/deps.ts";
import { leaseIsLive } from "../steps/liveness.ts";
import { readTail, readTailChecked, viewFacts } from "../steps/logReads.ts";
import { outcomeOfFacts } from "../steps/outcome.ts";
import { Access } from "./access.ts";
import type { EventPageRequest, EventsPage } from "./eventPage.ts";
import { assertRunFound, readEventPage, readOneEvent } from "./eventReads.ts";
import { asListed } from "./runListing.ts";
import type { ListRequest, RunOutcome } from "./types.ts";
import * as check from "./validate.ts";

export type RunlogDeps = ControlDeps & { ids: Ids };

/** The agent and model a run goes on with now, and those it started with. */
export interface InCharge {
  /** The agent the run goes on under: after a transfer, the one it was transferred to. */
  agent: string;
  /** The model spec in force: changed by a fork, a resume or a transfer. */
  model: string;
  /** The agent and model of its `run_started`. */
  startedAs: { agent: string; model: string };
}

/**
 * What resuming would do (its interrupted calls split into those run again and those answered as
 * interrupted), or why there is none; `running` when a live executor holds the run.
 */
export type ResumePointAnswer =
  | ResumePlan
  | NotResumable
  | { resumable: false; reason: "running"; description: string };

/**
 * What the library API reads: a run's resume point, events, outcome, and the list of runs, each
 * held to the Runlog's scope (lib/api/access.ts). Runlog (runlog.ts) adds what moves runs on.
 */
export class RunReads<Deps extends ReadDeps = ReadDeps> {
  /** @internal */
  protected readonly access: Access;

  /** @internal openLocal, createTestRunlog and the functions make a Runlog; a program asks them for one. */
  constructor(
    protected readonly deps: Deps,
    principal?: Principal,
  ) {
    this.access = new Access(deps.store, principal);
  }

  /** The principal this Runlog is scoped to (`as`); undefined for the unscoped, trusted API. */
  get principal(): Principal | undefined {
    return this.access.principal;
  }

  /**
   * The run's head, when the run exists and the caller may read it; NotFoundError otherwise, the
   * same words for either. No head means no run (getHead rebuilds a missing one from the log), or
   * one whose retention passed: never answered from a log this process still has cached.
   */
  private async visibleHead(runId: string): Promise<RunHead> {
    const head = await this.deps.store.getHead(runId);
    if (!head) throw new NotFoundError(`run ${runId} not found`, { runId });
    this.access.checkHead(runId, head);
    return head;
  }

  /** Where the run stopped and what resuming would do; writes nothing. */
  async resumePoint(runId: string): Promise<ResumePointAnswer> {
    // The head first: an execution that ends between the two reads then shows as still running
    // (true a moment ago), never as the older log's resting state with no executor. The head and
    // the log's tail only: as fast on a 10,000-event run as on a short one.
    const head = await this.visibleHead(check.runId(runId));
    let tail: LogView;
    try {
      tail = await readTailChecked(this.deps, runId, head);
    } catch (error) {
      if (error instanceof CorruptEventError) {
        return { resumable: false, reason: "malformed", description: error.message, seq: error.seq };
      }
      throw error;
    }
    const facts = viewFacts(this.deps, runId, tail);
    const classification = classifyFacts(facts);
    if (!classification.resumable) return classification;
    if (await this.isLive(head)) {
      return {
        resumable: false,
        reason: "running",
        description: `run ${runId} is being executed by ${head.lease!.owner}`,
      };
    }
    // The batch's calls are the tools of the agent that asked for them (after a transfer, not the
    // run's first agent): known when the log read shows it, else the agent the run started with.
    return this.plan(facts.batch?.agent ?? head.agent, classification);
  }

  /** The point as resume will carry it out: the tools of the run's agent say which calls run again. */
  private async plan(agent: string, point: ResumePoint): Promise<ResumePlan> {
    // Only asked when a call was interrupted: a run of an agent this process lacks still answers.
    if (point.interruptedToolCalls.length === 0) return planResume(point, []);
    const { agents } = this.deps;
    const tools = (typeof agents === "function" ? agents : await agents.load())(agent).tools;
    return planResume(point, tools);
  }

  /**
   * Every event of a run, in order (after `afterSeq` when given), all in memory: for programs and
   * tests. Anything that answers over a network pages with eventPage. NotFoundError for an unknown run.
   */
  async events(runId: string, afterSeq = 0): Promise<RunEvent[]> {
    check.runId(runId);
    check.optionalInteger(afterSeq, "afterSeq", 0);
    await this.access.check(runId);
    const events = await this.deps.store.read(runId, afterSeq);
    await assertRunFound(this.deps.store, runId, afterSeq, events[0]?.seq);
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
    await this.access.check(runId);
    return readEventPage(this.deps.store, runId, request);
  }

  /** One event of a run, whole. NotFoundError when the run, or its event at `seq`, does not exist. */
  async event(runId: string, seq: number): Promise<RunEvent> {
    check.runId(runId);
    await this.access.check(runId);
    return readOneEvent(this.deps.store, runId, seq);
  }

  /**
   * The run's status and final output; `running` while a live executor holds it, unless it was
   * cancelled or its log already settles it (a final answer stored: SETTLED_BY_LOG). `Output`: what its agent's output is (`OutputOf<typeof agent>`); the log holds it
   * as it was checked, this only says its type.
   */
  async outcome<Output = string>(runId: string): Promise<RunOutcome<Output>> {
    // The head before the log, for the reason resumePoint gives.
    const head = await this.visibleHead(check.runId(runId));
    const resting = (await this.resting(runId)) as RunOutcome<Output>;
    // A final answer (or another ending the log settles) is the outcome as soon as it is stored,
    // though its execution holds the lease a moment more: one who saw it stored reads it here.
    if (resting.status === "cancelled" || SETTLED_BY_LOG.has(resting.status)) return resting;
    if (await this.isLive(head)) return { runId, status: "running", output: null };
    return resting;
  }

  /**
   * Who runs the run now: the agent in charge (after a transfer, the one it went on under) and the
   * model in force (changed by a fork, a resume or a transfer), from the head and the log's tail
   * (bounded reads, never the log). `startedAs`: the agent and model of its `run_started`.
   */
  async inCharge(runId: string): Promise<InCharge> {
    const head = await this.visibleHead(check.runId(runId));
    const [tail, first] = await Promise.all([
      readTail(this.deps, runId),
      readOneEvent(this.deps.store, runId, 1),
    ]);
    const facts = viewFacts(this.deps, runId, tail);
    const started = first.type === "run_started" ? first : undefined;
    const startedAs = { agent: started?.agent ?? head.agent, model: started?.model ?? "unknown" };
    return { agent: facts.agent ?? head.agent, model: facts.model ?? startedAs.model, startedAs };
  }

  /**
   * The status and output the log's tail shows, whoever may be executing the run.
   * @internal
   */
  protected async resting(runId: string): Promise<RunOutcome<JsonValue>> {
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
    check.optionalString(given.childrenOf, "childrenOf");
    if (options.childrenOf !== undefined && (options.parent !== undefined || options.cursor !== undefined)) {
      throw new InvalidInputError(
        "childrenOf lists one run's children in one page: give it without parent or cursor",
        {
          field: "childrenOf",
        },
      );
    }
    const wanted = options.status === undefined ? undefined : [options.status].flat();
    // The store filters by the head's status, and a `running` head whose executor is gone shows
    // the status its log rests in: a killed run is `interrupted` (or `completed`, …) to the reader.
    // So `running` heads are read for any status asked for, and kept by the status they show.
    const stored =
      wanted === undefined || wanted.includes("running") ? wanted : [...wanted, "running" as const];
    if (options.childrenOf !== undefined) {
      const children = await this.children(options.childrenOf);
      return {
        runs: wanted === undefined ? children : children.filter((run) => wanted.includes(run.status)),
      };
    }
    const scope = this.access.listScope();
    const page = await this.deps.store.listRuns({
      ...options,
      ...(stored === undefined ? {} : { status: stored }),
      ...(scope === undefined ? {} : { owner: scope }),
    });
    const runs: RunHead[] = [];
    for (const head of page.runs) runs.push(await asListed(this.deps, head));
    const shown = wanted === undefined ? runs : runs.filter((run) => wanted.includes(run.status));
    // No forks of a run nobody can see is a typo'd id, not an empty answer; a deleted run's forks still list.
    if (options.parent !== undefined && options.cursor === undefined && page.runs.length === 0)
      await this.visibleHead(check.runId(options.parent));
    return { ...page, runs: shown };
  }

  /**
   * The child runs a run's sub-agent calls started, in call order: named by its log (each
   * `tool_started` of a sub-agent call names its child), so no index is needed, on any store. A
   * child whose start never happened (its parent died first) is not listed.
   */
  private async children(runId: string): Promise<RunHead[]> {
    const ids = (await this.events(runId)).flatMap((e) =>
      e.type === "tool_started" && e.child !== undefined ? [e.child] : [],
    );
    const runs: RunHead[] = [];
    for (const id of ids) {
      const head = await this.deps.store.getHead(id);
      if (head) runs.push(await asListed(this.deps, head));
    }
    return runs;
  }

  /** The one liveness check (lib/steps/liveness.ts), as resume and the sweeper ask it. */
  private isLive(head: RunHead): Promise<boolean> {
    return leaseIsLive(this.deps, head.lease);
  }
}
