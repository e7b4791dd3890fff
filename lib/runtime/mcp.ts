import type { McpClients } from "../ports/mcp.ts";

/**
 * The MCP clients of one runlog, whose adapter (and the MCP SDK) loads on first use: a runlog
 * whose agents take no MCP tools never loads it. Closing one never used loads nothing.
 */
export function mcpClients(): McpClients {
  let loaded: Promise<McpClients> | undefined;
  const load = () => {
    loaded ??= import("../adapters/mcp/clients.ts").then(({ SdkMcpClients }) => new SdkMcpClients());
    return loaded;
  };
  return {
    listTools: async (server) => (await load()).listTools(server),
    ready: async (server) => (await load()).ready(server),
    callTool: async (server, call, options) => (await load()).callTool(server, call, options),
    close: async () => {
      if (loaded !== undefined) await (await loaded).close();
    },
  };
}
