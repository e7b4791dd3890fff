import { classify, classifyFacts } from "../core/classify.ts";
import {
  errorMessage,
  ModelRejectedError,
  ModelUnavailableError,
  RetryableError,
  StaleError,
} from "../core/errors.ts";
import type { Model, ModelReply } from "../ports/model.ts";
import type { NextAction } from "../ports/runtime.ts";
import type { Agent } from "../ports/tool.ts";
import type { StepDeps, StepInput } from "./deps.ts";
import { findTool, parseArguments } from "./executeTool.ts";
import { nextAction } from "./nextAction.ts";
import { STEPS_PER_EXECUTION, withinBudget } from "./stepBudget.ts";
import { toolSpecs } from "./toolSpecs.ts";
import { assertCurrent, currentRun, writeNext } from "./writeNext.ts";

/**
 * The CallModel task. If the log already holds the answer to its input (a retry
 * or a duplicate delivery), it returns the next action from it without calling
 * the model; otherwise it calls the model and appends `model_response`. When
 * this execution has done its share of steps, the next action is a handoff.
 * What the model (or resolving it) throws is a model error; anything else
 * (the store) is not, so the workflow never records it as a model failure.
 */
export async function callModel(deps: StepDeps, input: StepInput): Promise<NextAction> {
  const events = await currentRun(deps, input.runId);
  const facts = deps.logs.factsOf(input.runId, events);
  assertCurrent(input.runId, facts, input.generation);
  const before = classifyFacts(facts);
  const used = facts.generationSteps;
  const limit = deps.stepsPerExecution ?? STEPS_PER_EXECUTION;
  const next = withinBudget(nextAction(before, true), used, limit);
  if (next.action !== "model") return next;

  const agent = deps.agents(facts.agent!);
  let model: Model;
  try {
    model = deps.models(facts.model!);
  } catch (error) {
    throw asModelError(facts.model!, error);
  }
  deps.faults.reached("model:before");
  const startedAt = Date.now();
  let raw: ModelReply;
  try {
    raw = await model.call({
      runId: input.runId,
      turn: facts.modelTurns,
      instructions: agent.instructions,
      messages: deps.logs.messagesOf(input.runId, events),
      tools: toolSpecs(agent),
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
  } catch (error) {
    throw asModelError(model.spec, error);
  }
  const reply = normalize(raw);
  const approvals = callsNeedingApproval(agent, reply);
  const ms = Date.now() - startedAt;
  deps.faults.reached("model:after-call");

  const after = await writeNext(deps, input.runId, input.generation, (latest, latestFacts) => {
    const seen = latest.length;
    // Someone of this generation answered the same input while we waited: keep theirs.
    if (latestFacts.modelTurns > facts.modelTurns) return { done: classifyFacts(latestFacts) };
    return {
      append: {
        type: "model_response",
        text: reply.text,
        toolCalls: reply.toolCalls,
        stop: reply.stop,
        model: model.spec,
        ms,
        ...(reply.usage ? { usage: reply.usage } : {}),
        ...(approvals.length > 0 ? { approvals } : {}),
      },
      // The response is an anchor: it alone says what comes next (no copy or re-read of a long log).
      // `latest` may have grown in the cache since (an array the cache holds only grows): up to `seen`.
      result: (event) =>
        latestFacts.problem
          ? classify([...latest.slice(0, seen), event])
          : classify([event], { seq: event.seq, generation: latestFacts.generation }),
    };
  });
  deps.faults.reached("model:after-append");
  return withinBudget(nextAction(after, false), used + 1, limit);
}

/**
 * What resolving or calling a model threw, as a model error: ModelUnavailableError
 * when it is transient, ModelRejectedError otherwise. A stop (a cancel, a newer
 * generation) stays what it is.
 */
function asModelError(spec: string, error: unknown): unknown {
  if (
    error instanceof ModelUnavailableError ||
    error instanceof ModelRejectedError ||
    error instanceof StaleError
  ) {
    return error;
  }
  const detail = `${spec}: ${error instanceof Error ? `${error.name}: ` : ""}${errorMessage(error)}`;
  if (error instanceof RetryableError) return new ModelUnavailableError(detail, { cause: error });
  return new ModelRejectedError(detail, { cause: error });
}

/** The calls of a reply whose tool asks a person first. A call with bad arguments asks nobody: it will fail. */
function callsNeedingApproval(agent: Agent, reply: ModelReply): string[] {
  return reply.toolCalls
    .filter((call) => {
      const tool = findTool(agent, call.name);
      if (!tool) return false;
      const parsed = parseArguments(tool, call);
      return "args" in parsed && tool.needsApproval(parsed.args);
    })
    .map((call) => call.id);
}

/** Make a reply's stop agree with its tool calls, whatever the provider said. */
function normalize(reply: ModelReply): ModelReply {
  if (reply.toolCalls.length > 0 && reply.stop === "stop") return { ...reply, stop: "tool_calls" };
  if (reply.toolCalls.length === 0 && reply.stop === "tool_calls") return { ...reply, stop: "stop" };
  if (reply.stop !== "tool_calls" && reply.toolCalls.length > 0) return { ...reply, toolCalls: [] };
  return reply;
}
