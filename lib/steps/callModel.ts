import { classify } from "../core/classify.ts";
import { readLog } from "../core/log.ts";
import { toMessages } from "../core/messages.ts";
import type { ModelReply } from "../ports/model.ts";
import type { NextAction } from "../ports/runtime.ts";
import type { Agent } from "../ports/tool.ts";
import type { StepDeps, StepInput } from "./deps.ts";
import { findTool, parseArguments } from "./executeTool.ts";
import { nextAction } from "./nextAction.ts";
import { toolSpecs } from "./toolSpecs.ts";
import { assertCurrent, loadRun, writeNext } from "./writeNext.ts";

/**
 * The CallModel task. If the log already holds the answer to its input (a retry
 * or a duplicate delivery), it returns the next action from it without calling
 * the model; otherwise it calls the model and appends `model_response`.
 */
export async function callModel(deps: StepDeps, input: StepInput): Promise<NextAction> {
  const events = await loadRun(deps, input.runId);
  const facts = readLog(events);
  assertCurrent(input.runId, facts, input.generation);
  const before = classify(events);
  const next = nextAction(before, true);
  if (next.action !== "model") return next;

  const agent = deps.agents(facts.agent!);
  const model = deps.models(facts.model!);
  deps.faults.reached("model:before");
  const startedAt = Date.now();
  const reply = normalize(
    await model.call({
      runId: input.runId,
      turn: facts.modelTurns,
      instructions: agent.instructions,
      messages: toMessages(events),
      tools: toolSpecs(agent),
      ...(deps.signal ? { signal: deps.signal } : {}),
    }),
  );
  const approvals = callsNeedingApproval(agent, reply);
  const ms = Date.now() - startedAt;
  deps.faults.reached("model:after-call");

  const after = await writeNext(deps, input.runId, input.generation, (latest, latestFacts) => {
    // Someone of this generation answered the same input while we waited: keep theirs.
    if (latestFacts.modelTurns > facts.modelTurns) return { done: classify(latest) };
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
      result: (event) => classify([...latest, event]),
    };
  });
  deps.faults.reached("model:after-append");
  return nextAction(after, false);
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
