// The shop's MCP server, on stdio: `node src/shop/server.ts`. The agents name it in their `mcp`
// list and runlog starts it (one process per runlog), so the example needs no service running.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as z from "zod";
import { findIncident, findOrder } from "./data.ts";

const server = new McpServer({ name: "shop", version: "1.0.0" });
const text = (value: unknown) => ({ content: [{ type: "text" as const, text: JSON.stringify(value) }] });

server.registerTool(
  "lookup_order",
  {
    description: "Look up an order: customer, items, amount paid, how many times it was charged, status.",
    inputSchema: {
      orderId: z
        .string()
        .regex(/^A-\d{4}$/)
        .describe("The order id, like A-1001"),
    },
    // Reads only: runlog may run an interrupted call again instead of asking the model.
    annotations: { readOnlyHint: true, idempotentHint: true },
  },
  async ({ orderId }) => {
    const order = findOrder(orderId);
    if (!order) return { ...text({ error: `there is no order ${orderId}` }), isError: true };
    return text(order);
  },
);

server.registerTool(
  "known_incident",
  {
    description: "Look up a known incident by the error code the customer sees, with its workaround.",
    inputSchema: { code: z.string().min(1).describe("The error code, like E42") },
    annotations: { readOnlyHint: true, idempotentHint: true },
  },
  async ({ code }) => text(findIncident(code) ?? { code, known: false }),
);

await server.connect(new StdioServerTransport());
