/**
 * The DynamoDB items of one bench turn (the model asks for a page, the tool starts and returns the
 * workload's 2 KB), encoded as the DynamoDB adapter stores them, and their billed sizes.
 */
import type { StoreContext } from "../../../lib/adapters/dynamodb/context.ts";
import { encodeEventItem } from "../../../lib/adapters/dynamodb/payloads.ts";
import type { NewEvent } from "../../../lib/core/events.ts";
import { stamp } from "../../../lib/core/storedEvents.ts";
import { callId, TOOL_NAME, toolArgs, toolResult } from "../workload.ts";
import { dynamoItemBytes } from "./turnCost.ts";

export async function turnItemBytes(turn = 5): Promise<number[]> {
  const runId = "run-0123456789abcdef";
  const events: NewEvent[] = [
    {
      type: "model_response",
      text: "",
      toolCalls: [{ id: callId(turn), name: TOOL_NAME, arguments: JSON.stringify(toolArgs(turn)) }],
      stop: "tool_calls",
      model: "openai:gpt-4.1-mini",
      usage: { inputTokens: 5_000, outputTokens: 20 },
      ms: 900,
    },
    { type: "tool_started", callId: callId(turn), name: TOOL_NAME },
    {
      type: "tool_result",
      callId: callId(turn),
      name: TOOL_NAME,
      content: toolResult(turn),
      isError: false,
      ms: 12,
    },
  ];
  // Items up to 64 KB stay inline: encodeEventItem touches no table for them.
  const ctx = {} as StoreContext;
  const at = new Date("2026-12-01T12:00:00.000Z");
  const sizes: number[] = [];
  for (const [i, event] of events.entries()) {
    sizes.push(dynamoItemBytes(await encodeEventItem(ctx, runId, stamp(event, 2 * turn + i, at, 1))));
  }
  return sizes;
}
