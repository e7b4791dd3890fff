import type { ModelReply } from "../ports/model.ts";
import type { Agent } from "../ports/tool.ts";
import { findTool, parseArguments } from "./executeTool.ts";

/** The calls of a reply whose tool asks a person first. A call with bad arguments asks nobody: it will fail. */
export function callsNeedingApproval(agent: Agent, reply: ModelReply): string[] {
  return reply.toolCalls
    .filter((call) => {
      const tool = findTool(agent, call.name);
      if (!tool) return false;
      const parsed = parseArguments(tool, call);
      return "args" in parsed && needsApproval(tool, parsed.args);
    })
    .map((call) => call.id);
}

/** Of the calls that ask a person, those whose tool lets the approval expire: how long each waits (ms). */
export function expiringApprovals(
  agent: Agent,
  reply: ModelReply,
  approvals: readonly string[],
): Record<string, number> | undefined {
  const timeouts: [string, number][] = [];
  for (const call of reply.toolCalls) {
    const ms = approvals.includes(call.id) ? findTool(agent, call.name)?.approvalTimeoutMs : undefined;
    if (ms !== undefined) timeouts.push([call.id, ms]);
  }
  return timeouts.length > 0 ? Object.fromEntries(timeouts) : undefined;
}

/**
 * A tool's own approval rule. One that throws asks a person (fail closed):
 * an error in the rule never runs a tool unasked, and never fails the step that holds the model's
 * paid-for reply (a failed step would lose it, and every retry would ask the model again).
 */
function needsApproval(tool: Agent["tools"][number], args: unknown): boolean {
  let answer: unknown;
  try {
    answer = tool.needsApproval(args);
  } catch {
    return true;
  }
  // A rule answers at once (its type is boolean): a promise (an async rule) is no answer, so it
  // asks a person too, and its rejection is caught here, never an unhandled one that ends the process.
  if (isThenable(answer)) {
    answer.then(undefined, () => {});
    return true;
  }
  return Boolean(answer);
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === "object" || typeof value === "function") &&
  value !== null &&
  typeof (value as { then?: unknown }).then === "function";

/** Make a reply's stop agree with its tool calls, whatever the provider said. */
export function normalize(reply: ModelReply): ModelReply {
  if (reply.toolCalls.length > 0 && reply.stop === "stop") return { ...reply, stop: "tool_calls" };
  if (reply.toolCalls.length === 0 && reply.stop === "tool_calls") return { ...reply, stop: "stop" };
  if (reply.stop !== "tool_calls" && reply.toolCalls.length > 0) return { ...reply, toolCalls: [] };
  return reply;
}
