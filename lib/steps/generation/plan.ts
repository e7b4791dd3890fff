import type { Limits } from "../../core/budget.ts";
import { type Classification, classifyFacts, type ResumePoint } from "../../core/classify.ts";
import type { NewEvent } from "../../core/events.ts";
import type { LogFacts } from "../../core/log.ts";
import type { ModelSettings } from "../../core/modelSettings.ts";
import { type PlannedTool, planResume } from "../../core/resumePlan.ts";
import { waitingChildren } from "../../core/subagents.ts";

/** Where a run can take a new message: everything but a run that must not be written to. */
const CLOSED_TO_MESSAGES = new Set(["cancelled", "malformed", "empty"]);

/**
 * How resuming (or sending a message to) a log of these facts would start, or why it cannot. A run
 * that reached a limit of its budget goes on when the resume raises limits (`limits`): from where
 * it stood before the limit stopped it. A message to a run whose sub-agent calls wait for their
 * child runs is refused (`awaiting_children`): it would close those calls while the children go on,
 * and their answers would come to nothing.
 */
export function plan(facts: LogFacts, input: string | undefined, limits?: Limits): Classification {
  const classification = classifyFacts(facts);
  if (input === undefined && limits !== undefined && facts.exhausted) {
    const { exhausted: _, ...before } = facts;
    return classifyFacts(before);
  }
  if (input === undefined || (!classification.resumable && CLOSED_TO_MESSAGES.has(classification.reason))) {
    return classification;
  }
  const children = waitingChildren(facts.batch);
  if (children.length > 0) {
    const named = children.map(({ call, childRunId }) => `${childRunId} (${call.id})`).join(", ");
    return {
      resumable: false,
      reason: "awaiting_children",
      description:
        `waiting for sub-agent runs to end: ${named}; a message is taken once each has answered its ` +
        "call: decide, resume or cancel those runs (a cancelled one answers its call as cancelled, " +
        "and the run goes on), or cancel this run with them",
      seq: facts.batch!.response.seq,
      waitingChildren: children,
    };
  }
  return {
    resumable: true,
    kind: "call_model",
    description: "a new user message: call the model",
    unansweredToolCalls: [],
    interruptedToolCalls: [],
  };
}

/**
 * The point as resume carries it out, for the `resumed` event to say so: interrupted calls of an
 * idempotent tool among `tools` (the agent's that asked for them) run again (lib/steps/runTool.ts),
 * the others are answered as interrupted.
 */
export function carriedOut(point: ResumePoint, tools: readonly PlannedTool[]): ResumePoint {
  return { ...point, description: planResume(point, tools).description };
}

/** What a `resumed` event that opens `generation` carries besides where it resumes. */
export interface ResumedFields {
  generation: number;
  by: string;
  /** The authenticated caller who asked, and whom it said it acted for. */
  actor?: string;
  onBehalfOf?: string;
  input?: string | undefined;
  /** The model in force, changed or not: a tail that starts here knows it without the whole log. */
  model?: string | undefined;
  /** The caller's idempotency key for the request that writes it. */
  idempotencyKey?: string | undefined;
  /** Limits a person raised: in force from this generation on. */
  limits?: Limits | undefined;
  /** Model settings a person changed: in force from this generation on. */
  modelSettings?: ModelSettings | undefined;
}

/** The `resumed` event that opens a generation at `point`. */
export function resumedEvent(
  point: Extract<Classification, { resumable: true }>,
  fields: ResumedFields,
): NewEvent {
  return {
    type: "resumed",
    generation: fields.generation,
    kind: point.kind,
    description: point.description,
    ...(fields.model === undefined ? {} : { model: fields.model }),
    ...(fields.input === undefined ? {} : { input: fields.input }),
    by: fields.by,
    ...(fields.actor === undefined ? {} : { actor: fields.actor }),
    ...(fields.onBehalfOf === undefined ? {} : { onBehalfOf: fields.onBehalfOf }),
    ...(fields.idempotencyKey === undefined ? {} : { idempotencyKey: fields.idempotencyKey }),
    ...(fields.limits === undefined ? {} : { limits: fields.limits }),
    ...(fields.modelSettings === undefined ? {} : { modelSettings: fields.modelSettings }),
  };
}
