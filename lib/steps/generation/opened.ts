import { canonicalValue } from "../../core/canonicalJson.ts";
import { classifyFacts } from "../../core/classify.ts";
import { NotFoundError } from "../../core/errors.ts";
import { RESUMED_BY } from "../../core/eventConstants.ts";
import type { ResumeKind } from "../../core/eventFields.ts";
import type { RunEvent } from "../../core/events.ts";
import type { LogFacts, LogView } from "../../core/log.ts";
import { readLog } from "../../core/logReader.ts";
import type { RunHead } from "../../ports/eventStore.ts";
import type { NextAction } from "../../ports/runtime.ts";
import type { ControlDeps, StepDeps } from "../deps.ts";
import { nextAction } from "../nextAction.ts";
import { inputOf, limitsAsked, type Move, modelAsked, settingsAsked } from "./opening.ts";

/*
 * An opened generation: the log ends at the event that opened the generation in force (a
 * `resumed`, or a run's `run_started`) and nothing has happened in it yet. Its execution may never
 * have started (a crash, a failed start) or may be starting right now. A request that asks for
 * what it already carries completes it rather than opening another.
 */

export type Opener = Extract<RunEvent, { type: "resumed" | "run_started" }>;

/** When the log was last written (epoch ms): its last event's time. */
export const lastWriteAt = (tail: LogView) => Date.parse(tail.events.at(-1)?.at ?? "");

/** The event that opened the generation in force, when nothing has happened in it since. */
export function openedGeneration(tail: LogView, facts: LogFacts): Opener | undefined {
  const last = tail.events.at(-1);
  if (last?.type === "resumed" && last.generation === facts.generation && !facts.cancelled) return last;
  if (last?.type === "run_started") return last;
  return undefined;
}

/**
 * Whether a request asks for what an opened generation already does: nothing new, or the same
 * new message and the same model (or none asked for). Who asks does not matter: a sweeper finishing a
 * person's resume does what the person asked. The same message sent again while the generation
 * that carries it never started is taken as a retry; send it once more after it ran for a second copy.
 * A handoff's generation is one a handoff opened.
 */
export function sameRequest(opener: Opener, opening: Move): boolean {
  if (opening.kind === "handoff") return opener.type === "resumed" && opener.by === RESUMED_BY.handoff;
  const input = inputOf(opening);
  const model = modelAsked(opening);
  const limits = limitsAsked(opening);
  const settings = settingsAsked(opening);
  // A plain resume asks for nothing new: whatever the opened generation carries is what it resumes.
  if (input === undefined && model === undefined && limits === undefined && settings === undefined)
    return true;
  const carried = opener.type === "resumed" ? opener.input : undefined;
  const carriedModel = opener.type === "resumed" ? opener.model : undefined;
  const carriedLimits = opener.type === "resumed" ? opener.limits : undefined;
  const carriedSettings = opener.type === "resumed" ? opener.modelSettings : undefined;
  const same = (asked: unknown, had: unknown) =>
    asked === undefined || canonicalValue(asked) === canonicalValue(had ?? null);
  return (
    input === carried &&
    (model === undefined || model === carriedModel) &&
    same(limits, carriedLimits) &&
    same(settings, carriedSettings)
  );
}

/** How the opened generation resumes, as its opening event says. */
export const openedKind = (opener: Opener): ResumeKind =>
  opener.type === "resumed" ? opener.kind : "call_model";

export const openedBy = (opener: Opener) =>
  opener.type === "resumed" ? (opener.by ?? "a resume") : "the run's start";

/** What the opened generation's execution does first, as its opener decided it. */
export function openedAction(tail: LogView, opener: Opener): NextAction {
  // A first event, or a new message, starts with the model; nothing before them matters.
  if (opener.type === "run_started" || opener.input !== undefined) return { action: "model" };
  return nextAction(classifyFacts(readLog(tail.events.slice(0, -1), tail.start)), true);
}

/**
 * The model spec the run goes on with: what the tail shows (the run's first event, a turn, a
 * `resumed`: each records it), else, on a log written before turns recorded it, the whole log's,
 * read into the cache the execution reads next anyway.
 */
export async function modelInForce(deps: StepDeps, runId: string, facts: LogFacts): Promise<string> {
  if (facts.model !== undefined) return facts.model;
  const whole = deps.logs.factsOf(runId, await deps.logs.load(runId));
  if (whole.model === undefined) throw new NotFoundError(`run ${runId} has no model recorded`, { runId });
  return whole.model;
}

/**
 * Refuse, before anything is written, to move a run whose agent in force is not one this process
 * has (a CLI without the `--agents` the run was started with, a deployment without that agent):
 * its execution could take no step. A tail shows the agent only when it holds the run's first
 * event or a transfer, else the head's is checked; the head records a transfer's agent when the
 * run rests, so it may lag one, and only when it names an unknown agent is the whole log read.
 */
export async function assertAgentHere(
  deps: Pick<ControlDeps, "agents" | "logs">,
  runId: string,
  facts: LogFacts,
  head: RunHead,
): Promise<void> {
  if (facts.agent !== undefined) {
    deps.agents(facts.agent);
    return;
  }
  try {
    deps.agents(head.agent);
  } catch (error) {
    const whole = deps.logs.factsOf(runId, await deps.logs.load(runId));
    if (whole.agent === undefined || whole.agent === head.agent) throw error;
    deps.agents(whole.agent);
  }
}
