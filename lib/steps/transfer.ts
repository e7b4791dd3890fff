import { errorMessage, NotFoundError } from "../core/errors.ts";
import type { ToolCall } from "../core/eventFields.ts";
import type { NewEvent } from "../core/events.ts";
import type { ToolBatch } from "../core/log.ts";
import { issuesText } from "../core/structuredOutput.ts";
import type { ToolSpec } from "../core/toolSpecs.ts";
import { firstTransfer, secondTransferResult, transferTarget } from "../core/transfers.ts";
import { TransferArgumentsSchema, transferSpec } from "../core/transferTool.ts";
import { WITHOUT_JIT } from "../core/withoutJit.ts";
import type { Agent } from "../ports/tool.ts";
import type { StepDeps } from "./deps.ts";
import type { ToolOutcome } from "./executeTool.ts";
import { discoverMcpTools } from "./mcpTools.ts";

// Transfers: the agent option is `handoffs`, but in code this is a "transfer", because "handoff"
// already names an execution handing a long run to a new one (lib/steps/handoff.ts).

/** The agent a call transfers to, when it is a transfer tool of `agent` (one of its handoffs). */
export function transferOf(agent: Agent, call: Pick<ToolCall, "name">): string | undefined {
  const target = transferTarget(call.name);
  return target !== undefined && agent.handoffs?.includes(target) ? target : undefined;
}

/** The transfer tools `agent`'s model is offered, each described by its target's description. */
export function transferTools(deps: Pick<StepDeps, "agents">, agent: Agent): ToolSpec[] {
  return (agent.handoffs ?? []).map((name) => {
    const description = describe(deps, name);
    return transferSpec({ name, description });
  });
}

/** The target's description; a target that cannot be made is still offered, and its call answered with the error. */
function describe(deps: Pick<StepDeps, "agents">, name: string): string | undefined {
  try {
    return deps.agents(name).description;
  } catch {
    return undefined;
  }
}

/**
 * What answering a transfer call of the batch comes to: the `transferred` event to append, or a
 * tool error for the model to read (a second transfer in the response, bad arguments, an agent the
 * registry does not know). Decided from the response and the registry, so a retry decides the
 * same; the event also records the target's MCP tools, listed from its servers.
 */
export async function decideTransfer(
  deps: Pick<StepDeps, "agents" | "mcp">,
  batch: ToolBatch,
  agent: Agent,
  call: ToolCall,
  to: string,
): Promise<{ append: NewEvent } | { error: ToolOutcome }> {
  const first = firstTransfer(batch.response.toolCalls, (c) => transferOf(agent, c) !== undefined);
  if (first && first.id !== call.id) return { error: fail(secondTransferResult(first)) };
  const args = parseTransferArguments(call);
  if ("error" in args) return args;
  let target: Agent;
  try {
    target = deps.agents(to);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    return { error: fail(`not transferred: ${errorMessage(error)}`) };
  }
  // The target's MCP tools, listed now and recorded on the event, as a start records the first
  // agent's: a server that is down fails the step before anything is written, so it is retried.
  const mcpTools = await discoverMcpTools(deps, target);
  return {
    append: {
      type: "transferred",
      callId: call.id,
      name: call.name,
      from: agent.name,
      to: target.name,
      ...(args.reason === undefined ? {} : { reason: args.reason }),
      model: target.defaultModel,
      ...(mcpTools === undefined ? {} : { mcpTools }),
    },
  };
}

function parseTransferArguments(call: ToolCall): { reason?: string | undefined } | { error: ToolOutcome } {
  let raw: unknown;
  try {
    raw = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
  } catch (error) {
    return { error: fail(`arguments for ${call.name} are not valid JSON: ${errorMessage(error)}`) };
  }
  const parsed = TransferArgumentsSchema.safeParse(raw, WITHOUT_JIT);
  if (parsed.success) return parsed.data;
  return {
    error: fail(`invalid arguments for ${call.name}: ${issuesText(parsed.error.issues, "arguments")}`),
  };
}

const fail = (content: string): ToolOutcome => ({ content, isError: true });
