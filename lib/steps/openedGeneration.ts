import { classifyFacts } from "../core/classify.ts";
import { ConflictError, NotFoundError } from "../core/errors.ts";
import { RESUMED_BY, type ResumeKind, type RunEvent } from "../core/events.ts";
import { type LogFacts, readLog } from "../core/log.ts";
import type { NextAction } from "../ports/runtime.ts";
import type { AdvanceRequest, AdvanceResult } from "./advance.ts";
import { autoResumesAfter } from "./autoResumes.ts";
import type { ControlDeps } from "./deps.ts";
import { leaseFor } from "./lease.ts";
import { nextAction } from "./nextAction.ts";
import type { LogView } from "./writeNext.ts";

/*
 * An opened generation: the log ends at the event that opened the generation in force (a
 * `resumed`, or a run's `run_started`) and nothing has happened in it yet. Its execution may never
 * have started (a crash, a failed start) or may be starting right now. lib/steps/advance.ts
 * completes such a generation, rather than opening another, for a request that asks for what it
 * already carries.
 */

/**
 * The event that opened the generation in force, when nothing has happened in it since: the
 * log ends at a `resumed` of that generation, or at a run's first event. Its execution may never
 * have started (a crash, a failed start) or may be starting right now.
 */
export function openedGeneration(tail: LogView, facts: LogFacts): Opener | undefined {
  const last = tail.events.at(-1);
  if (last?.type === "resumed" && last.generation === facts.generation && !facts.cancelled) return last;
  if (last?.type === "run_started") return last;
  return undefined;
}

export type Opener = Extract<RunEvent, { type: "resumed" | "run_started" }>;

/**
 * Whether a request asks for what an opened generation already does: nothing new, or the same
 * new message and the same model (or none asked for). Who asks does not matter: a sweeper finishing a
 * person's resume does what the person asked. The same message sent again while the generation
 * that carries it never started is taken as a retry; send it once more after it ran for a second copy.
 */
export function sameRequest(opener: Opener, request: AdvanceRequest): boolean {
  if (request.from) return opener.type === "resumed" && opener.by === RESUMED_BY.handoff;
  // A plain resume asks for nothing new: whatever the opened generation carries is what it resumes.
  if (request.input === undefined && request.model === undefined) return true;
  const input = opener.type === "resumed" ? opener.input : undefined;
  const model = opener.type === "resumed" ? opener.model : undefined;
  return request.input === input && (request.model === undefined || request.model === model);
}

/**
 * Make sure an opened generation's execution runs: nothing if it does, else start it under the
 * lease (claimed again if its holder is gone) with the input the first attempt gave it, so on
 * AWS a start both made count as one. "spent" when that generation's execution ran and ended.
 */
export async function completeGeneration(
  deps: ControlDeps,
  request: AdvanceRequest,
  tail: LogView,
  facts: LogFacts,
  opener: Opener,
): Promise<AdvanceResult | "spent" | "replan" | { holder: string }> {
  const { runId } = request;
  const generation = facts.generation;
  const result = openedResult(runId, facts, opener);
  // The execution calls the model: check it can be built before anything is claimed or started.
  if (!request.from) deps.models(await modelInForce(deps, runId, facts));
  const head = await deps.store.getHead(runId);
  if (!head) throw new NotFoundError(`run ${runId} has no head record`);
  // The log went on since it was read (another request completed the generation): decide again.
  if (head.lastSeq > opener.seq) return "replan";
  const holder = head.lease?.owner;
  if (holder !== undefined) {
    const state = await deps.orchestrator.executionOf(holder);
    if (state !== "none") return state === "running" ? { holder } : "spent";
  }
  const owner = deps.orchestrator.leaseOwnerFor({ runId, generation, createdAt: head.createdAt });
  // Claimed even by the owner that holds it (on AWS the generation's own name): the version check
  // lets one of two requests completing at once start the execution. A sweeper completing someone
  // else's opening counts it as one of its resumes (it costs what one does); its own opening was
  // counted when it was claimed.
  const bySweeper = opener.type === "resumed" && opener.by === RESUMED_BY.sweeper;
  const now = deps.clock.now().getTime();
  const record = bySweeper ? undefined : autoResumesAfter(head.autoResumes, request, now, lastWriteAt(tail));
  try {
    await deps.store.claimLease(runId, leaseFor(deps, owner), head.leaseVersion, record);
  } catch (error) {
    // Another request took it a moment ago: that one starts the execution.
    if (error instanceof ConflictError) return { holder: "another executor, which claimed it first" };
    throw error;
  }
  deps.faults.reached("control:after-claim");
  deps.faults.reached("control:before-execute");
  const next = openedAction(tail, opener);
  await deps.orchestrator.execute({ runId, generation, next, owner });
  return result;
}

/** What completing an opened generation answers: that generation, as its opening event says. */
export function openedResult(runId: string, facts: LogFacts, opener: Opener): AdvanceResult {
  const kind: ResumeKind = opener.type === "resumed" ? opener.kind : "call_model";
  return { resumed: true, runId, generation: facts.generation, kind, opened: false };
}

export const openedBy = (opener: Opener) =>
  opener.type === "resumed" ? (opener.by ?? "a resume") : "the run's start";

/** What the opened generation's execution does first, as its opener decided it. */
function openedAction(tail: LogView, opener: Opener): NextAction {
  // A first event, or a new message, starts with the model; nothing before them matters.
  if (opener.type === "run_started" || opener.input !== undefined) return { action: "model" };
  return nextAction(classifyFacts(readLog(tail.events.slice(0, -1), tail.start)), true);
}

/** When the log was last written (epoch ms): its last event's time. */
export const lastWriteAt = (tail: LogView) => Date.parse(tail.events.at(-1)?.at ?? "");

/**
 * The model spec the run goes on with: what the tail shows (the run's first event, a turn, a
 * `resumed`: each records it), else, on a log written before turns recorded it, the whole log's,
 * read into the cache the execution reads next anyway.
 */
export async function modelInForce(deps: ControlDeps, runId: string, facts: LogFacts): Promise<string> {
  if (facts.model !== undefined) return facts.model;
  const whole = deps.logs.factsOf(runId, await deps.logs.load(runId));
  if (whole.model === undefined) throw new NotFoundError(`run ${runId} has no model recorded`);
  return whole.model;
}
