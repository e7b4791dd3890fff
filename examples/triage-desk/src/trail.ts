import type { RunEvent } from "runlog";

/** How a run was composed, read from its log: who answered, which child runs and MCP tools it used. */
export interface Trail {
  /** The agent in charge at the end: the last transfer's target, else the agent the run started with. */
  agent: string;
  /** Transfers, as `from -> to`. */
  transfers: string[];
  /** The child runs its sub-agent calls started. */
  children: string[];
  /** The MCP tools it called, as the model named them (`shop__lookup_order`). */
  mcpCalls: string[];
}

export function trailOf(events: readonly RunEvent[]): Trail {
  const trail: Trail = { agent: "", transfers: [], children: [], mcpCalls: [] };
  for (const event of events) {
    if (event.type === "run_started") trail.agent = event.agent;
    if (event.type === "transferred") {
      trail.transfers.push(`${event.from} -> ${event.to}`);
      trail.agent = event.to;
    }
    if (event.type === "tool_started") {
      if (event.child !== undefined) trail.children.push(event.child);
      else if (event.name.includes("__")) trail.mcpCalls.push(event.name);
    }
  }
  return trail;
}
