import * as z from "zod";
import type { ToolSpec } from "./toolSpecs.ts";

/**
 * The tools of an agent's MCP servers, as a run recorded them in `run_started` when it started
 * (docs/guides/mcp-tools.md). A resume, fork or replay goes by this record and never asks the
 * servers again, so a run sees the same tools, with the same schemas, all its life.
 */
export const McpToolSchema = z.object({
  /** The server's name in the agent's `mcp` list. */
  server: z.string().min(1),
  /** The tool's own name on that server: what `tools/call` is sent. */
  tool: z.string().min(1),
  /** What the model calls it: `<server>__<tool>` (mcpToolName). */
  name: z.string().min(1),
  description: z.string(),
  /** The tool's JSON Schema as the server gave it: what the model is sent. */
  inputSchema: z.record(z.string(), z.unknown()),
  /** The server said `idempotentHint: true`: an interrupted call is run again (as defineTool's `idempotent`). */
  idempotent: z.boolean(),
});
export type McpTool = z.infer<typeof McpToolSchema>;

/** What a provider accepts as a tool name (OpenAI's and Bedrock's rules agree on this). */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Between the server's name and its tool's in the name the model sees. */
export const MCP_NAME_SEPARATOR = "__";

/** The name the model sees for `tool` of `server`: `<server>__<tool>`. */
export const mcpToolName = (server: string, tool: string): string => `${server}${MCP_NAME_SEPARATOR}${tool}`;

/** The recorded tools as the model sees them: the schema is the one recorded, as the server gave it. */
export function mcpToolSpecs(tools: readonly McpTool[] | undefined): ToolSpec[] {
  return (tools ?? []).map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.inputSchema,
  }));
}
