import {
  assertPriced,
  checkLimits,
  exhausted,
  figuresOf,
  type Limits,
  limitsInForce,
} from "../core/budget.ts";
import type { NotResumable } from "../core/classify.ts";
import { ConflictError, InvalidInputError, LeaseHeldError, StaleError } from "../core/errors.ts";
import { RESUMED_BY } from "../core/eventConstants.ts";
import { assertSameKeyed, keyedEvent } from "../core/idempotency.ts";
import type { LogFacts } from "../core/log.ts";
import type { ModelSettings } from "../core/modelSettings.ts";
import { MAX_SUBAGENT_DEPTH } from "../core/subagents.ts";
import type { ControlDeps } from "./deps.ts";
import { openGeneration } from "./generation/open.ts";
import { type ResumeResult, resumeResult } from "./generation/outcome.ts";
import { loadRun, readTail, viewFacts } from "./logReads.ts";
import { settingsAsked } from "./modelSettingsAsked.ts";
import { restingWithinOwnerCap } from "./ownerCap.ts";
import { lookUpChildren } from "./subagents/lookUp.ts";

export type { ResumeResult } from "./generation/outcome.ts";

export interface ResumeRequest {
  runId: string;
  /** A model spec to use from here on instead of the run's. */
  model?: string;
  /**
   * A new user message: continue the run with it (any state but cancelled or malformed, or waiting
   * for the child runs of its sub-agent calls: a ConflictError naming them).
   */
  input?: string;
  /** Who resumes, recorded on the `resumed` event (see RESUMED_BY). @default "person" */
  by?: string;
  /** The authenticated caller who asked, recorded as the `resumed` event's `actor`. @default none */
  actor?: string;
  /** Whom that caller says it acts for, recorded beside `actor`. @default none */
  onBehalfOf?: string;
  /**
   * With `input`: the caller's key for this message, recorded on the `resumed` event; the same key
   * again answers what the first request did and sends nothing. @default none
   */
  idempotencyKey?: string;
  /**
   * Limits to go on with, replacing those named (recorded on the `resumed` event, so every later
   * step and resume goes by them): how a person continues a run that is `budget_exhausted`. They
   * may be above the agent's: raising them is a person's decision, recorded with who made it.
   * @default the run's
   */
  limits?: Limits;
  /**
   * Model settings to go on with, replacing those named (recorded on the `resumed` event): within
   * what the agent allows, and what the model in force honours. @default the run's recorded settings
   */
  modelSettings?: ModelSettings;
}

/**
 * Classify the tail; if the run can go on and nobody is executing it, move it to
 * its next generation (lib/steps/generation/) and execute from the resume point.
 * With `input`, the `resumed` event carries the new user message, closing any
 * call left open. Retrying the same request after a crash or a failed start
 * completes it instead of opening another generation; a message with an idempotency key is
 * recognised however long after, and answered with the generation it opened.
 */
export async function resumeRun(deps: ControlDeps, request: ResumeRequest): Promise<ResumeResult> {
  const { runId, input, model } = request;
  const limits = request.limits === undefined ? undefined : checkLimits(request.limits);
  let modelSettings: ModelSettings | undefined;
  if (limits !== undefined || model !== undefined || request.modelSettings !== undefined) {
    const facts = deps.logs.factsOf(runId, await loadRun(deps, runId));
    checkBudgetAsked(deps, runId, facts, limits, model);
    modelSettings = settingsAsked(deps, facts, request.modelSettings, model);
  }
  const by = request.by ?? RESUMED_BY.person;
  const key = input === undefined ? undefined : request.idempotencyKey;
  if (key !== undefined) {
    const earlier = await sentBefore(deps, request, key, false);
    if (earlier) return earlier;
  }
  // A new message sets a resting run running again: one more of its owner's running runs.
  if (input !== undefined) await restingWithinOwnerCap(deps, runId);
  const asked = {
    ...(model === undefined ? {} : { model }),
    ...(request.actor === undefined ? {} : { actor: request.actor }),
    ...(request.onBehalfOf === undefined ? {} : { onBehalfOf: request.onBehalfOf }),
    ...(limits === undefined ? {} : { limits }),
    ...(modelSettings === undefined ? {} : { modelSettings }),
  };
  try {
    const outcome = await openGeneration(
      deps,
      input === undefined
        ? { kind: "resume", runId, by, ...asked }
        : { kind: "send", runId, by, input, ...asked, ...(key === undefined ? {} : { idempotencyKey: key }) },
    );
    if (outcome.kind === "not_resumable" && outcome.classification.reason === "awaiting_children") {
      // A message would close sub-agent calls whose children go on: refused, nothing written.
      if (input !== undefined) throw waitingForChildren(runId, outcome.classification);
      // A parent waiting for its sub-agents looks them up instead: it has nothing to run itself.
      return (await lookedUp(deps, runId)) ?? resumeResult(outcome);
    }
    return resumeResult(outcome);
  } catch (error) {
    // Refused because someone holds or moved the run: an equal request (the same key) may be that someone.
    if (key === undefined || !(error instanceof ConflictError || error instanceof StaleError)) throw error;
    // An equal request that claimed the lease first may not have written its `resumed` yet (its
    // append waits for its commit): give it a moment before answering that the run is busy.
    for (const waitMs of error instanceof LeaseHeldError ? EQUAL_REQUEST_WAITS_MS : [0]) {
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
      const earlier = await sentBefore(deps, request, key, true);
      if (earlier) return earlier;
    }
    throw error;
  }
}

/**
 * Look a waiting parent's children up (lib/steps/subagents/lookUp.ts); when that moved the parent
 * on (a child had ended and its answer resumed the parent), what that resume opened. A tree deeper
 * than a look-up goes (made before sub-agent runs were bounded) is a ConflictError naming the runs
 * it did not look into, once the rest is looked up: never a silent `waiting`.
 */
async function lookedUp(deps: ControlDeps, runId: string): Promise<ResumeResult | undefined> {
  const before = viewFacts(deps, runId, await readTail(deps, runId)).generation;
  const beyond = await lookUpChildren(deps, runId);
  const tail = await readTail(deps, runId);
  const opened = tail.events.findLast((e) => e.type === "resumed" && e.generation > before);
  if (opened?.type === "resumed") {
    return { resumed: true, runId, generation: opened.generation, kind: opened.kind, opened: false };
  }
  if (beyond.length > 0) {
    throw new ConflictError(
      `run ${runId} waits for sub-agent runs more than ${MAX_SUBAGENT_DEPTH} levels below it, deeper than ` +
        `a resume looks: ${beyond.join(", ")} (and the runs below) were not looked up from here. ` +
        "Resume each of those runs to carry its part of the tree on",
      { runId: beyond[0]! },
    );
  }
  return undefined;
}

/** A message refused because the run waits for its sub-agents' runs (plan.ts): what to do instead. */
function waitingForChildren(runId: string, why: NotResumable): ConflictError {
  const children = (why.waitingChildren ?? []).map((c) => c.childRunId).join(", ");
  return new ConflictError(
    `run ${runId} takes no message while its sub-agent calls wait for runs ${children}: a message ` +
      "would close those calls while the runs go on, and their answers would come to nothing. " +
      `Decide, resume or cancel ${children} (a cancelled run answers its call as cancelled, and run ` +
      `${runId} goes on), or cancel run ${runId} with them; then send the message`,
    { runId },
  );
}

/**
 * Refuse, before anything is written, limits a resume cannot go on with: a reached limit not raised
 * above what the run used (it would stop again at once), or a cost limit on a model the price table
 * does not price. `facts` are the whole log's: the run's usage is counted from all of it.
 */
function checkBudgetAsked(
  deps: ControlDeps,
  runId: string,
  facts: LogFacts,
  asked: Limits | undefined,
  model: string | undefined,
): void {
  if (facts.agent === undefined) return;
  const limits = { ...limitsInForce(facts.limits, deps.agents(facts.agent).limits), ...asked };
  const spec = model ?? facts.model;
  if (spec !== undefined)
    assertPriced(limits, deps.prices, spec, model === undefined ? "limits.maxCostUsd" : "model");
  if (asked === undefined || !facts.exhausted) return;
  const still = exhausted(limits, facts.used, deps.prices);
  if (!still) return;
  const used = figuresOf(facts.used, deps.prices);
  const figure =
    still.limit === "maxTurns"
      ? `${used.turns} turns`
      : still.limit === "maxTokens"
        ? `${used.tokens} tokens`
        : `$${(used.costUsd ?? 0).toFixed(4)}`;
  const field = `limits.${still.limit}`;
  throw new InvalidInputError(
    `${field} is ${limits[still.limit]}: raise it above the ${figure} run ${runId} has used to go on`,
    { field, runId },
  );
}

/**
 * How long a keyed request refused by a held lease looks again for an equal request's event before
 * it answers 409: about a second in all, the time a claim and one append take with room to spare.
 */
const EQUAL_REQUEST_WAITS_MS = [0, 10, 20, 40, 80, 160, 320, 400];

/**
 * What an earlier request with this key did, read from the whole log: the generation its
 * `resumed` opened. Undefined when no event carries the key, and, unless `settled`, when the
 * keyed event ends the log (its generation may never have executed: the caller completes it as
 * the retry it is). The key on another request is an IdempotencyKeyReusedError.
 */
async function sentBefore(
  deps: ControlDeps,
  request: ResumeRequest,
  key: string,
  settled: boolean,
): Promise<ResumeResult | undefined> {
  const events = await loadRun(deps, request.runId);
  const earlier = keyedEvent(events, key);
  if (earlier === undefined) return undefined;
  assertSameKeyed(request.runId, key, earlier, "resumed", {
    input: request.input,
    ...(request.model === undefined ? {} : { model: request.model }),
  });
  if (earlier.type !== "resumed" || (!settled && earlier === events.at(-1))) return undefined;
  return {
    resumed: true,
    runId: request.runId,
    generation: earlier.generation,
    kind: earlier.kind,
    opened: false,
  };
}
