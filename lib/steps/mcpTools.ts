import * as z from "zod";
import { InvalidInputError } from "../core/errors.ts";
import { type McpTool, mcpToolName, TOOL_NAME } from "../core/mcpTools.ts";
import { transferToolName } from "../core/transfers.ts";
import type { McpClients } from "../ports/mcp.ts";
import type { Agent, Tool } from "../ports/tool.ts";
import type { StepDeps } from "./deps.ts";
import { ToolErrorResult } from "./executeTool.ts";

/** How long an MCP call may take before it is answered with a timeout (as defineTool's default). */
export const MCP_TOOL_TIMEOUT_MS = 60_000;

/** What a call's `_meta` carries: the run and the call it belongs to, so a server can log or dedupe by them. */
export const MCP_META_RUN_ID = "runlog/runId";
export const MCP_META_CALL_ID = "runlog/callId";

function clientsOf(deps: Pick<StepDeps, "mcp">, agent: Agent): McpClients {
  if (deps.mcp === undefined) {
    throw new InvalidInputError(
      `agent ${agent.name} takes tools from MCP servers, and this runlog has no MCP clients to reach them`,
      { field: "mcp" },
    );
  }
  return deps.mcp;
}

/**
 * The tools of the agent's MCP servers, listed now, for `run_started` to record; undefined for an
 * agent without servers. A server that cannot be reached is a McpUnavailableError (nothing is
 * written: the start may be tried again); a tool whose name cannot be a tool name, or that takes
 * the name of another tool the model is offered (one of the agent's own tools, its sub-agents among
 * them, a transfer tool of its handoffs, another MCP tool), is refused naming it.
 */
export async function discoverMcpTools(
  deps: Pick<StepDeps, "mcp">,
  agent: Agent,
): Promise<McpTool[] | undefined> {
  const servers = agent.mcp ?? [];
  if (servers.length === 0) return undefined;
  const clients = clientsOf(deps, agent);
  const lists = await Promise.all(servers.map((server) => clients.listTools(server)));
  // Every other name the model is offered (lib/steps/callModel.ts): own tools, then transfers.
  const taken = new Map<string, string>([
    ...agent.tools.map((tool): [string, string] => [tool.name, `its tool ${tool.name}`]),
    ...(agent.handoffs ?? []).map((target): [string, string] => [
      transferToolName(target),
      `its transfer to agent ${target} (handoffs)`,
    ]),
  ]);
  return servers.flatMap((server, index) =>
    lists[index]!.map((listed): McpTool => {
      const name = mcpToolName(server.name, listed.name);
      if (!TOOL_NAME.test(name)) {
        throw new InvalidInputError(
          `agent ${agent.name}: MCP server ${server.name} lists a tool ${JSON.stringify(listed.name)}, named ${JSON.stringify(name)} for the model, and a tool name must be 1-64 letters, digits, "_" or "-"`,
          { field: "mcp" },
        );
      }
      const other = taken.get(name);
      if (other !== undefined) {
        throw new InvalidInputError(
          `agent ${agent.name}: two tools are named ${name} (MCP server ${server.name} lists ${listed.name}, and ${other})`,
          { field: "mcp" },
        );
      }
      taken.set(name, `MCP server ${server.name}'s ${listed.name}`);
      return {
        server: server.name,
        tool: listed.name,
        name,
        description: listed.description ?? "",
        inputSchema: listed.inputSchema,
        idempotent: listed.annotations?.idempotentHint === true,
      };
    }),
  );
}

/** MCP arguments are an object; the server checks them against its own schema. */
const ARGUMENTS = z.record(z.string(), z.unknown());

/** A recorded MCP tool of a run, callable as any tool, and the server it goes to. */
export interface McpCallable {
  tool: Tool<unknown>;
  /** Connect and ping: a server that is down fails the step (McpUnavailableError) before the call starts. */
  ready(): Promise<void>;
}

/**
 * The recorded tool `name` as a Tool that calls its server with `tools/call`; undefined when the
 * run recorded no such tool. A call whose connection fails throws McpUnavailableError (the step is
 * retried and the call answered as interrupted, or run again when the server said it is
 * idempotent); a server's error answer is the call's error result.
 */
export function recordedMcpTool(
  deps: Pick<StepDeps, "mcp">,
  agent: Agent,
  recorded: readonly McpTool[] | undefined,
  name: string,
): McpCallable | undefined {
  const entry = recorded?.find((tool) => tool.name === name);
  if (entry === undefined) return undefined;
  const server = agent.mcp?.find((s) => s.name === entry.server);
  const missing = () =>
    new InvalidInputError(
      `agent ${agent.name} no longer has the MCP server ${entry.server} this run recorded ${entry.name} from`,
      { field: "mcp" },
    );
  const tool: Tool<unknown> = {
    name: entry.name,
    description: entry.description,
    parameters: ARGUMENTS,
    idempotent: entry.idempotent,
    timeoutMs: MCP_TOOL_TIMEOUT_MS,
    needsApproval: () => false,
    run: async (args, context) => {
      if (server === undefined) throw missing();
      const result = await clientsOf(deps, agent).callTool(
        server,
        {
          tool: entry.tool,
          arguments: args as Record<string, unknown>,
          meta: { [MCP_META_RUN_ID]: context.runId, [MCP_META_CALL_ID]: context.callId },
        },
        { signal: context.signal, timeoutMs: MCP_TOOL_TIMEOUT_MS },
      );
      // The server's own error answer: its text is the call's error result, as the server wrote it.
      if (result.isError) throw new ToolErrorResult(result.content);
      return result.content;
    },
  };
  return {
    tool,
    ready: async () => {
      if (server !== undefined) await clientsOf(deps, agent).ready(server);
    },
  };
}
