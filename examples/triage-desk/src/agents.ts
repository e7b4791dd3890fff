import { fileURLToPath } from "node:url";
import { agentAsTool, defineAgent, type McpServer } from "runlog";
import { Ticket } from "./ticket.ts";

/**
 * The shop's MCP server (src/shop/server.ts), a process runlog starts on stdio with the Node
 * running this code. Every agent naming it shares one process per runlog.
 */
const shop: McpServer = {
  name: "shop",
  command: process.execPath,
  args: [fileURLToPath(new URL("./shop/server.ts", import.meta.url))],
};

/** Answers questions about charges and refunds; called by triage as a tool, each call its own child run. */
export const billing = defineAgent({
  name: "billing",
  description: "Checks charges, invoices and refunds of an order.",
  instructions:
    "You are the billing specialist. Look the order up before you answer, and say in one or two " +
    "sentences what billing does about it.",
  model: "desk:billing",
  mcp: [shop],
});

/** Takes over the conversation when the problem is technical, and closes the ticket itself. */
export const technical = defineAgent({
  name: "technical",
  description: "Solves technical problems: errors, crashes, signing in.",
  instructions:
    "You are the technical specialist. Check the known incidents for the error the customer sees, " +
    "then close the ticket with the fix.",
  model: "desk:technical",
  mcp: [shop],
  output: Ticket,
});

/** Reads every message first: answers order questions, asks billing, or hands technical problems over. */
export const triage = defineAgent({
  name: "triage",
  description: "Reads every customer message first and routes it.",
  instructions:
    "You are the triage desk of a small shop. Ask billing about charges and refunds, hand technical " +
    "problems to the technical specialist, look orders up yourself, and answer with the ticket.",
  model: "desk:triage",
  tools: [
    agentAsTool(billing, {
      name: "ask_billing",
      description: "Ask the billing specialist about a charge, an invoice or a refund",
    }),
  ],
  handoffs: [technical],
  mcp: [shop],
  output: Ticket,
});

/** What the CLI (`RUNLOG_AGENTS=src/agents.ts`), `npm start` and the tests serve. */
export const agents = { triage, billing, technical };

/** The offline models the agents name (`desk:triage` …), served beside them. */
export { models } from "./models/desk.ts";
