/*
 * The client class of runlog's HTTP API: one typed method per operation, each checking its input
 * and sending it over the transport (transport.ts), and the streams of follow.ts and lifecycle.ts.
 */
import type { ListedEvent } from "../api/followRun.ts";
import type { RunOutcome } from "../api/types.ts";
import { InvalidInputError } from "../core/errors.ts";
import type { LifecycleEvent } from "../core/lifecycleSchemas.ts";
import {
  callOptions,
  actor as checkedActor,
  afterSeq as checkedAfter,
  runId as checkedRunId,
  object,
  optionalObject,
  streamOptions,
  text,
} from "./checks.ts";
import { type ClientOptions, transportDeps } from "./clientOptions.ts";
import { type FollowOptions, follow } from "./follow.ts";
import { type LifecycleStreamOptions, lifecycle } from "./lifecycle.ts";
import { newKey, present, runSegment, segment } from "./requestParts.ts";
import { type ApiRequest, sendJson, type TransportDeps } from "./transport.ts";
import type {
  ActorInput,
  CallOptions,
  ControlCallOptions,
  EventPageAnswer,
  EventPageInput,
  ForkRunInput,
  ListRunsInput,
  ReplayReportAnswer,
  ResumePointAnswer,
  ResumeRunAnswer,
  ResumeRunInput,
  RunEvent,
  RunsPage,
  StartReplaysAnswer,
  StartReplaysInput,
  StartRunAnswer,
  StartRunInput,
} from "./types.ts";

/**
 * runlog's HTTP API as typed calls: the methods of the library's `Runlog`, over the network. Each
 * throws the runlog error class of the answer (NotFoundError, ConflictError …, with `response`
 * saying what the answer was), retries 429s and 5xx, and sends an Idempotency-Key with every
 * start and control call, so a retried start never starts two runs.
 */
export class RunlogClient {
  readonly #deps: TransportDeps;

  /** A client of the API at `options.url` (createClient does the same); a bad option is an InvalidInputError naming it. */
  constructor(options: ClientOptions) {
    this.#deps = transportDeps(options);
  }

  #json<T>(request: ApiRequest): Promise<{ status: number; body: T }> {
    return sendJson<T>(this.#deps, request);
  }

  async #control<T>(path: string, body: unknown, given: ControlCallOptions | undefined): Promise<T> {
    const options = callOptions(given);
    const { body: answer } = await this.#json<T>({
      method: "POST",
      path,
      body,
      idempotencyKey: options?.idempotencyKey ?? newKey(),
      signal: options?.signal,
    });
    return answer;
  }

  /**
   * Start a run (POST /runs); answers as it starts (`running`), the run going on on the server.
   * Without a `runId`, an Idempotency-Key names the run, so a retry finds the same run.
   */
  async start(request: StartRunInput, options?: ControlCallOptions): Promise<StartRunAnswer> {
    text(object(request, "request").agent, "agent");
    text(request.input, "input");
    options = callOptions(options);
    if (request.runId !== undefined && options?.idempotencyKey !== undefined) {
      throw new InvalidInputError("give either runId or an idempotencyKey, not both", { field: "runId" });
    }
    const { status, body } = await this.#json<RunOutcome>({
      method: "POST",
      path: "/runs",
      body: request,
      // A chosen runId already makes the start idempotent (and the API takes one or the other).
      ...(request.runId === undefined ? { idempotencyKey: options?.idempotencyKey ?? newKey() } : {}),
      signal: options?.signal,
    });
    return { ...body, created: status === 202 };
  }

  /**
   * Start a replay batch (POST /runs/replays): each recorded run again on `model`, as a run of its
   * own; answers at once. An Idempotency-Key names the batch, so a retry starts nothing twice.
   */
  async startReplays(request: StartReplaysInput, options?: ControlCallOptions): Promise<StartReplaysAnswer> {
    if (!Array.isArray(request?.runIds))
      throw new InvalidInputError("runIds: expected an array of run ids", { field: "runIds" });
    text(request.model, "model");
    const { status, body } = await this.#json<Omit<StartReplaysAnswer, "created">>({
      method: "POST",
      path: "/runs/replays",
      body: request,
      idempotencyKey: options?.idempotencyKey ?? newKey(),
      signal: options?.signal,
    });
    return { ...body, created: status === 202 };
  }

  /** A replay batch's report (GET /replays/{batchId}); read again until `done`. */
  async replayReport(batchId: string, options?: CallOptions): Promise<ReplayReportAnswer> {
    const path = `/replays/${segment(batchId, "batchId")}`;
    return (await this.#json<ReplayReportAnswer>({ method: "GET", path, signal: options?.signal })).body;
  }

  /** A run's status and final output (GET /runs/{id}). */
  async get(runId: string, options?: CallOptions): Promise<RunOutcome> {
    options = callOptions(options);
    const path = `/runs/${runSegment(runId, "runId")}`;
    return (await this.#json<RunOutcome>({ method: "GET", path, signal: options?.signal })).body;
  }

  /** Runs, newest first, a page at a time (GET /runs). */
  async list(request?: ListRunsInput, options?: CallOptions): Promise<RunsPage> {
    request = optionalObject(request, "request");
    options = callOptions(options);
    const query = {
      ...present("limit", request.limit),
      ...present("cursor", request.cursor),
      ...present("status", request.status),
      ...present("parent", request.parent),
      ...present("childrenOf", request.childrenOf),
    };
    return (await this.#json<RunsPage>({ method: "GET", path: "/runs", query, signal: options?.signal }))
      .body;
  }

  /** One page of a run's events after `after` (GET /runs/{id}/events); `wait` long-polls. */
  async eventPage(
    runId: string,
    request: EventPageInput = {},
    options?: CallOptions,
  ): Promise<EventPageAnswer> {
    request = optionalObject(request, "request");
    options = callOptions(options);
    const path = `/runs/${runSegment(runId, "runId")}/events`;
    const query = {
      ...present("after", request.after),
      ...present("limit", request.limit),
      ...present("wait", request.wait),
    };
    return (await this.#json<EventPageAnswer>({ method: "GET", path, query, signal: options?.signal })).body;
  }

  /** Every event of a run after `afterSeq`, read page by page (an event too big for a page comes truncated). */
  async events(runId: string, afterSeq = 0, options?: CallOptions): Promise<ListedEvent[]> {
    const events: ListedEvent[] = [];
    let after: number | undefined = checkedAfter(afterSeq, "afterSeq");
    while (after !== undefined) {
      const page: EventPageAnswer = await this.eventPage(runId, { after, limit: 1000 }, options);
      events.push(...page.events);
      after = page.next;
    }
    return events;
  }

  /** One event of a run, whole (GET /runs/{id}/events/{seq}). */
  async event(runId: string, seq: number, options?: CallOptions): Promise<RunEvent> {
    options = callOptions(options);
    if (!Number.isInteger(seq) || seq < 1) {
      throw new InvalidInputError(`seq: expected a whole number from 1, got ${seq}`, { field: "seq" });
    }
    const path = `/runs/${runSegment(runId, "runId")}/events/${seq}`;
    return (await this.#json<{ event: RunEvent }>({ method: "GET", path, signal: options?.signal })).body
      .event;
  }

  /** Where a run would resume and what resuming would do, or why it cannot (GET /runs/{id}/resume-point). */
  async resumePoint(runId: string, options?: CallOptions): Promise<ResumePointAnswer> {
    options = callOptions(options);
    const path = `/runs/${runSegment(runId, "runId")}/resume-point`;
    return (await this.#json<ResumePointAnswer>({ method: "GET", path, signal: options?.signal })).body;
  }

  /**
   * Continue a run from its resume point (POST /runs/{id}/resume). A completed run is answered
   * with `resumed: false`; any other run that cannot resume is a ConflictError whose
   * `response.reason` says why (`awaiting_approval`, `cancelled` …).
   */
  async resume(request: ResumeRunInput, options?: CallOptions): Promise<ResumeRunAnswer> {
    const path = `/runs/${runSegment(object(request, "request").runId, "runId")}/resume`;
    options = callOptions(options);
    const body = { ...present("model", request.model), ...present("limits", request.limits) };
    return (await this.#json<ResumeRunAnswer>({ method: "POST", path, body, signal: options?.signal })).body;
  }

  /** Continue a run with a new user message (POST /runs/{id}/messages). */
  async send(runId: string, message: string, options?: ControlCallOptions): Promise<RunOutcome> {
    const path = `/runs/${runSegment(runId, "runId")}/messages`;
    return this.#control(path, { message: text(message, "message") }, options);
  }

  /** Copy a run's log up to a seq into a new run, which goes on from there (POST /runs/{id}/fork). */
  async fork(request: ForkRunInput, options?: ControlCallOptions): Promise<RunOutcome> {
    const { runId, ...body } = object(request, "request");
    return this.#control(`/runs/${runSegment(runId, "runId")}/fork`, body, options);
  }

  /** Approve or reject a call waiting for a decision (POST /runs/{id}/approvals/{callId}); the last decision resumes the run. */
  async decide(
    runId: string,
    callId: string,
    approved: boolean,
    actor: ActorInput = {},
    options?: ControlCallOptions,
  ): Promise<RunOutcome> {
    if (typeof approved !== "boolean") {
      throw new InvalidInputError("approved: expected true or false", { field: "approved" });
    }
    const path = `/runs/${runSegment(runId, "runId")}/approvals/${segment(callId, "callId")}`;
    return this.#control(path, { approved, ...checkedActor(actor) }, options);
  }

  /** Approve a call waiting for a decision. */
  approve(
    runId: string,
    callId: string,
    actor?: ActorInput,
    options?: ControlCallOptions,
  ): Promise<RunOutcome> {
    return this.decide(runId, callId, true, actor, options);
  }

  /** Reject a call waiting for a decision; the model is told. */
  reject(
    runId: string,
    callId: string,
    actor?: ActorInput,
    options?: ControlCallOptions,
  ): Promise<RunOutcome> {
    return this.decide(runId, callId, false, actor, options);
  }

  /** Cancel a run (POST /runs/{id}/cancel): whoever executes it stops at its next step. */
  async cancel(runId: string, actor: ActorInput = {}, options?: ControlCallOptions): Promise<RunOutcome> {
    return this.#control(`/runs/${runSegment(runId, "runId")}/cancel`, checkedActor(actor), options);
  }

  /**
   * A run's events as they are appended, each once and in seq order, across dropped connections
   * (see follow.ts): `for await (const event of client.follow(runId)) …`, `break` to stop.
   */
  follow(runId: string, options?: FollowOptions): AsyncGenerator<ListedEvent, void, undefined> {
    checkedRunId(runId, "runId");
    const checked = streamOptions(options, ["onDelta"]);
    if (checked.after !== undefined) checkedAfter(checked.after, "options.after");
    return follow(this.#deps, runId, checked);
  }

  /**
   * The lifecycle events of the runs a `runlog serve` executes (GET /lifecycle), across dropped
   * connections (see lifecycle.ts): `for await (const event of client.lifecycle()) …`. A deployed
   * API throws NotFoundError `lifecycle_unavailable`: on AWS, subscribe to the bus instead.
   */
  lifecycle(options?: LifecycleStreamOptions): AsyncGenerator<LifecycleEvent, void, undefined> {
    const checked = streamOptions(options, ["onMissed"]);
    if (checked.after !== undefined) text(checked.after, "options.after");
    return lifecycle(this.#deps, checked);
  }
}

/** A client of runlog's HTTP API (`runlog/client`): `createClient({ url, auth: { type: "sigv4" } })`. */
export function createClient(options: ClientOptions): RunlogClient {
  return new RunlogClient(options);
}
