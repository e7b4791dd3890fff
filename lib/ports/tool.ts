import type { z } from "zod";
import type { Limits } from "../core/budget.ts";
import type { ModelSettings } from "../core/modelSettings.ts";
import type { OutputSpec } from "../core/structuredOutput.ts";
import type { McpServer } from "./mcp.ts";

export interface ToolContext {
  runId: string;
  callId: string;
  /** Aborted when the tool's timeout passes or the run is stopped. */
  signal: AbortSignal;
}

/** A tool an agent can call. Create one with `defineTool`. */
export interface Tool<Args = unknown> {
  name: string;
  description: string;
  parameters: z.ZodType<Args>;
  /** Safe to run again after an interruption: re-run instead of answered as interrupted. */
  idempotent: boolean;
  timeoutMs: number;
  /** Whether a call with these arguments must wait for a person's approval. */
  needsApproval(args: Args): boolean;
  /**
   * How long (ms) a call that waits for approval waits: undecided by then, it is answered as
   * rejected ("approval expired") and the run goes on. Undefined: it waits for a person however long.
   */
  approvalTimeoutMs?: number;
  /**
   * Set on a sub-agent (agentAsTool): a call does not run `run`, it starts a child run of this
   * agent with the call's `input` (lib/steps/subagents/), and the child's ending is its result.
   */
  subagent?: SubagentSpec;
  run(args: Args, context: ToolContext): Promise<unknown>;
}

/** The agent a sub-agent tool's calls start a child run of. */
export interface SubagentSpec {
  /** The agent's name: what the child's `run_started` records, and how the registry finds it. */
  agent: string;
  /** Makes the agent, for a registry that was not given it by name (lib/agents/registry.ts). */
  make: (context: AgentContext) => Agent;
  /**
   * The deepest a child run of a call may be (a run started on its own is at depth 0): a call from
   * a run this deep already is answered with an error instead. @default DEFAULT_MAX_SUBAGENT_DEPTH (8)
   */
  maxDepth?: number;
}

/** An agent: its instructions, its tools and the model it uses unless told otherwise. */
export interface Agent {
  name: string;
  instructions: string;
  tools: readonly Tool<unknown>[];
  defaultModel: string;
  /** The most a run of it may spend (lib/core/budget.ts). @default { maxTurns: DEFAULT_MAX_TURNS } */
  limits?: Limits;
  /** How its runs call the model (lib/core/modelSettings.ts). @default none: the provider's defaults */
  modelSettings?: ModelSettings;
  /** What its final answer must be (lib/core/structuredOutput.ts). @default none: any text */
  output?: OutputSpec;
  /** The MCP servers its runs take tools from (docs/guides/mcp-tools.md). @default none */
  mcp?: readonly McpServer[];
  /** What it is for: the description of the tool other agents transfer to it with. @default none */
  description?: string;
  /**
   * The agents it may hand the conversation to, by name (defineAgent's `handoffs`): the model sees a
   * `transfer_to_<name>` tool for each (lib/core/transfers.ts). @default none
   */
  handoffs?: readonly string[];
}

export interface AgentContext {
  /** The data directory, for tools that keep files locally. */
  dataDir: string;
}

/** Finds an agent by name; throws NotFoundError for an unknown name. */
export type AgentRegistry = (name: string) => Agent;
