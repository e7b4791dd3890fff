import * as z from "zod";
import { eventBase } from "./eventFields.ts";
import { McpToolSchema } from "./mcpTools.ts";

/*
 * The events of a tool call's life: its start, its result, and a transfer (a call that hands the
 * run to another agent). Part of the run's event union (lib/core/events.ts).
 */

export const ToolStartedSchema = z.object({
  ...eventBase,
  type: z.literal("tool_started"),
  callId: z.string().min(1),
  name: z.string().min(1),
  /**
   * Set when the call is a sub-agent's (agentAsTool): the id of the child run it starts, derived
   * from this run's id and the call's (lib/core/subagents.ts). The call then has no result until
   * the child ends: its ending is the result, and the run waits for it (`awaiting_children`).
   */
  child: z.string().min(1).optional(),
});

export const ToolResultSchema = z.object({
  ...eventBase,
  type: z.literal("tool_result"),
  callId: z.string().min(1),
  name: z.string().min(1),
  content: z.string(),
  isError: z.boolean(),
  /** Set when runlog answered the call because its run was interrupted, not the tool. */
  interrupted: z.boolean().optional(),
  /**
   * Set when the tool ran again: the call had started before and has no result (its run was
   * interrupted mid-call), and the tool is idempotent, so it was run once more, not answered as
   * interrupted.
   */
  rerun: z.boolean().optional(),
  ms: z.number().min(0).optional(),
});

/**
 * The run went on under another agent: the model of `from` called its `transfer_to_<to>` tool
 * (an agent's `handoffs` option; lib/core/transfers.ts). One event that is both the answer to
 * that call (the model reads it as the call's result, so the conversation stays well-formed) and
 * the change of agent: from the next model call on, `to`'s instructions, tools and model are in
 * force, with the whole history. Named "transfer" in code because "handoff" already names an
 * execution handing a long run to the next one (lib/steps/handoff.ts).
 */
export const TransferredSchema = z.object({
  ...eventBase,
  type: z.literal("transferred"),
  /** The call this answers. */
  callId: z.string().min(1),
  /** The tool the model called (`transfer_to_<to>`). */
  name: z.string().min(1),
  /** The agent that asked for the transfer. */
  from: z.string().min(1),
  /** The agent the run goes on under. */
  to: z.string().min(1),
  /** Why, as the model said it (the call's `reason` argument). */
  reason: z.string().optional(),
  /** The model spec in force from here on: `to`'s model. */
  model: z.string().min(1).optional(),
  /**
   * The tools of `to`'s MCP servers, listed at the transfer (as `run_started.mcpTools` lists the
   * first agent's): the run's MCP tools from here on. Absent: `to` takes none.
   */
  mcpTools: z.array(McpToolSchema).optional(),
});
