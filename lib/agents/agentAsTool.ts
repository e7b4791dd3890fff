import * as z from "zod";
import { InvalidInputError } from "../core/errors.ts";
import type { Tool } from "../ports/tool.ts";
import { defineTool } from "./defineTool.ts";
import type { AgentFactory } from "./registry.ts";

export interface AgentToolOptions {
  /** The tool's name, as the model calls it: 1-64 letters, digits, "_" or "-". */
  name: string;
  /** What the model is told the sub-agent does. */
  description: string;
}

/** What a sub-agent tool takes: the message its child run starts with. */
const SubagentArguments = z.object({
  input: z.string().min(1).describe("The message the sub-agent starts with: everything it needs to know"),
});

/**
 * Make an agent callable as a tool taking `{ input: string }`. A call starts a child run of the
 * agent (its id derived from this run's and the call's, its `run_started` naming this run and call
 * as its parent, its owner this run's); the parent waits without an execution held, and the
 * child's final answer is the call's result (its ending, as an error result, when it does not
 * complete). A crash anywhere converges on one child and one result (docs/guides/sub-agents.md).
 */
export function agentAsTool(agent: AgentFactory, options: AgentToolOptions): Tool<{ input: string }> {
  if (typeof agent !== "function") {
    throw new InvalidInputError("agentAsTool: agent must be an agent made with defineAgent(...)", {
      field: "agent",
    });
  }
  if (typeof options?.description !== "string" || options.description.trim() === "") {
    throw new InvalidInputError(
      `agentAsTool ${JSON.stringify(options?.name)}: description must be a non-empty string`,
      {
        field: "description",
      },
    );
  }
  // An agent not made by defineAgent is asked for its name once, with no data directory.
  const name = agent.agentName ?? agent({ dataDir: "" }).name;
  const tool = defineTool({
    name: options.name,
    description: options.description,
    parameters: SubagentArguments,
    // The child run may take as long as a run takes; the parent waits for it without an execution.
    timeoutMs: 2_147_483_647,
    run: () => {
      throw new Error(`sub-agent tool ${options.name} runs as a child run of agent ${name}, not in-process`);
    },
  });
  return { ...tool, subagent: { agent: name, make: agent } };
}
