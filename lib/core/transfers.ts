import type { ToolCall } from "./eventFields.ts";

// Transfers: an agent handing the conversation to another agent (the user-facing option is
// `handoffs` on defineAgent). In code they are "transfers" because "handoff" already names an
// execution handing a long run to a new one (lib/steps/handoff.ts). Pure: names and the words the
// model reads back; the tool the model sees is transferTool.ts (its schema is zod's, and reading
// a log, which needs these words, loads no zod).

/** What the model calls to transfer: `transfer_to_<agent name>`. */
export const TRANSFER_PREFIX = "transfer_to_";

/** The longest agent name a transfer can name: a tool name is at most 64 characters. */
export const MAX_TRANSFER_TARGET = 64 - TRANSFER_PREFIX.length;

/** The tool that transfers to `agent`. */
export const transferToolName = (agent: string): string => `${TRANSFER_PREFIX}${agent}`;

/** The agent a transfer tool names, or undefined when `toolName` is not one. */
export function transferTarget(toolName: string): string | undefined {
  return toolName.startsWith(TRANSFER_PREFIX) && toolName.length > TRANSFER_PREFIX.length
    ? toolName.slice(TRANSFER_PREFIX.length)
    : undefined;
}

/**
 * The transfer a response makes: the first call (in the response's order) of a transfer tool the
 * agent has. Decided from the response alone, so whichever call runs first, the same one wins.
 */
export function firstTransfer(
  calls: readonly ToolCall[],
  isTransfer: (call: ToolCall) => boolean,
): ToolCall | undefined {
  return calls.find(isTransfer);
}

/** What the model reads as the result of the call that transferred. */
export const transferredToolResult = (to: string): string =>
  `Transferred to agent ${to}. From here on you are ${to}: go on with the conversation.`;

/** The tool error a second transfer call of one response gets. */
export const secondTransferResult = (taken: ToolCall): string =>
  `not transferred: this response already transfers with call ${taken.id} (${taken.name}); one transfer per response`;
