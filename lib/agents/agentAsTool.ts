import * as z from "zod";
import { InvalidInputError } from "../core/errors.ts";
import { DEFAULT_MAX_SUBAGENT_DEPTH, MAX_SUBAGENT_DEPTH } from "../core/subagents.ts";
import type { Tool } from "../ports/tool.ts";
import { defineTool, shown, TOOL_NAME } from "./defineTool.ts";
import type { AgentFactory } from "./registry.ts";

export interface AgentToolOptions {
  /** The tool's name, as the model calls it: 1-64 letters, digits, "_" or "-". */
  name: string;
  /** What the model is told the sub-agent does. */
  description: string;
  /**
   * The deepest a child run of this tool may be: a run started on its own is at depth 0, its
   * sub-agent's child at 1. A call from a run this deep already is answered with an error (no child
   * starts), so an agent that reaches itself as a sub-agent stops on its own. A whole number from 1
   * to 32 (MAX_SUBAGENT_DEPTH). @default 8 (DEFAULT_MAX_SUBAGENT_DEPTH)
   */
  maxDepth?: number;
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
  // An agent not made by defineAgent is asked for its name once, with no data directory.
  const name = agent.agentName ?? agent({ dataDir: "" }).name;
  const where = `agentAsTool(${name})`;
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new InvalidInputError(
      `${where}: give it options { name, description }: the tool's name as the model calls it, and what the sub-agent does; got ${shown(options)}`,
      { field: "options" },
    );
  }
  if (typeof options.name !== "string" || !TOOL_NAME.test(options.name)) {
    throw new InvalidInputError(
      `${where}: options.name, the tool's name as the model calls it, must be 1-64 letters, digits, "_" or "-"; got ${shown(options.name)}`,
      { field: "options.name" },
    );
  }
  if (typeof options.description !== "string" || options.description.trim() === "") {
    throw new InvalidInputError(
      `${where}: options.description, what the model is told the sub-agent does, must be a non-empty string; got ${shown(options.description)}`,
      { field: "options.description" },
    );
  }
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_SUBAGENT_DEPTH;
  if (!Number.isInteger(maxDepth) || maxDepth < 1 || maxDepth > MAX_SUBAGENT_DEPTH) {
    throw new InvalidInputError(
      `${where}: options.maxDepth must be a whole number from 1 to ${MAX_SUBAGENT_DEPTH}; got ${shown(options.maxDepth)}`,
      { field: "options.maxDepth" },
    );
  }
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
  return { ...tool, subagent: { agent: name, make: agent, maxDepth } };
}
