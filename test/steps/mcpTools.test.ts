import { describe, expect, it } from "vitest";
import * as z from "zod";
import { InvalidInputError } from "../../lib/core/errors.ts";
import type { McpClients, McpListedTool } from "../../lib/ports/mcp.ts";
import type { Agent, Tool } from "../../lib/ports/tool.ts";
import { discoverMcpTools } from "../../lib/steps/mcpTools.ts";

/** MCP clients whose servers list these tools, by server name. */
function clients(lists: Record<string, string[]>): McpClients {
  return {
    listTools: async (server) =>
      (lists[server.name] ?? []).map((name): McpListedTool => ({ name, inputSchema: {} })),
    ready: async () => {},
    callTool: async () => ({ content: "", isError: false }),
    close: async () => {},
  };
}

const tool = (name: string): Tool<unknown> => ({
  name,
  description: "",
  parameters: z.object({}),
  idempotent: false,
  timeoutMs: 1000,
  needsApproval: () => false,
  run: async () => "",
});

const agent = (fields: Partial<Agent>): Agent => ({
  name: "a",
  instructions: "",
  tools: [],
  defaultModel: "scripted:x",
  ...fields,
});

describe("discoverMcpTools", () => {
  it("names every listed tool <server>__<tool>", async () => {
    const tools = await discoverMcpTools(
      { mcp: clients({ shop: ["lookup"] }) },
      agent({ mcp: [{ name: "shop", url: "http://localhost:1/mcp" }], handoffs: ["orders"] }),
    );
    expect(tools?.map((t) => t.name)).toEqual(["shop__lookup"]);
  });

  it.each([
    [
      "one of the agent's own tools",
      { tools: [tool("shop__lookup")] },
      "shop",
      "lookup",
      "its tool shop__lookup",
    ],
    [
      "a transfer tool of its handoffs",
      { handoffs: ["x__y"] },
      "transfer_to_x",
      "y",
      "its transfer to agent x__y (handoffs)",
    ],
  ] as const)("refuses a tool that takes the name of %s", async (_, fields, server, listed, other) => {
    const error = await discoverMcpTools(
      { mcp: clients({ [server]: [listed] }) },
      agent({ ...fields, mcp: [{ name: server, url: "http://localhost:1/mcp" }] }),
    ).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field: "mcp" });
    expect((error as Error).message).toContain(`two tools are named ${server}__${listed}`);
    expect((error as Error).message).toContain(other);
  });
});
