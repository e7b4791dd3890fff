import type { ModelRequest } from "runlog";

/** One tool result the model has seen, by the tool's name as the model called it. */
export interface SeenResult {
  name: string;
  content: string;
  isError: boolean;
}

/** What a rule-based model reads of a request: the message it works on, the results so far, its tools. */
export interface Conversation {
  /** The first user message: the customer's ticket, or the question a sub-agent was asked. */
  ticket: string;
  results: SeenResult[];
  tools: string[];
}

export function readConversation(request: ModelRequest): Conversation {
  const first = request.messages.find((message) => message.role === "user");
  return {
    ticket: first?.content ?? "",
    results: request.messages.flatMap((message) =>
      message.role === "tool"
        ? [{ name: message.name, content: message.content, isError: message.isError }]
        : [],
    ),
    tools: request.tools.map((tool) => tool.name),
  };
}

/**
 * The name the model calls a tool by: its own (`ask_billing`), or an MCP server's tool as runlog
 * offers it (`shop__lookup_order`). Undefined when the agent was not given it.
 */
export function toolNamed(conversation: Conversation, name: string): string | undefined {
  return conversation.tools.find((tool) => tool === name || tool.endsWith(`__${name}`));
}

/** The latest result of that tool, if it has been called and answered. */
export function resultOf(conversation: Conversation, name: string): SeenResult | undefined {
  return conversation.results.findLast((result) => result.name === name || result.name.endsWith(`__${name}`));
}

/** The first order id (A-1234) the text names. */
export const orderIdIn = (text: string) => /\bA-\d{4}\b/.exec(text)?.[0];

/** The first error code (E42) the text names. */
export const errorCodeIn = (text: string) => /\bE\d+\b/.exec(text)?.[0];

/** The ticket's first sentence, as a summary fits. */
export function summaryOf(ticket: string): string {
  const sentence = /^[^.!?]*[.!?]?/.exec(ticket.trim())?.[0] ?? ticket;
  return sentence.slice(0, 200) || "(empty message)";
}

/** A tool result's JSON, or undefined when it is not JSON (an interruption, a server's error text). */
export function jsonOf(result: SeenResult): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(result.content);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
