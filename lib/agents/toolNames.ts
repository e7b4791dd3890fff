import { MCP_NAME_SEPARATOR } from "../core/mcpTools.ts";
import { transferToolName } from "../core/transfers.ts";
import type { Agent, AgentRegistry } from "../ports/tool.ts";

/** The tool names calls can be made to, across agents: what a tool group may name (lib/workflow/toolGroups.ts). */
export interface AgentToolNames {
  has(tool: string): boolean;
  /** Each name, and `<server>__*` for an MCP server's tools (listed only when a run starts). */
  readonly names: readonly string[];
}

/**
 * Every tool the registered agents' models can call, and their sub-agents', however deep: their own
 * tools (sub-agents among them), their transfers, and any tool of their MCP servers.
 */
export function agentToolNames(registry: AgentRegistry, registered: readonly string[]): AgentToolNames {
  const tools = new Set<string>();
  const servers = new Set<string>();
  const seen = new Set<string>();
  const visit = (agent: Agent): void => {
    if (seen.has(agent.name)) return;
    seen.add(agent.name);
    for (const tool of agent.tools) {
      tools.add(tool.name);
      if (tool.subagent !== undefined) visit(registry(tool.subagent.agent));
    }
    for (const target of agent.handoffs ?? []) tools.add(transferToolName(target));
    for (const server of agent.mcp ?? []) servers.add(`${server.name}${MCP_NAME_SEPARATOR}`);
  };
  for (const name of registered) visit(registry(name));
  return {
    has: (tool) => tools.has(tool) || [...servers].some((prefix) => tool.startsWith(prefix)),
    names: [...[...tools].sort(), ...[...servers].sort().map((prefix) => `${prefix}*`)],
  };
}
