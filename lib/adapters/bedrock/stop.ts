import type { KnownStop } from "../../core/eventFields.ts";

/**
 * runlog's stop word for Converse's `stopReason`. A tool_use turn without a complete call, or an
 * end_turn with calls, is judged by the calls, as the OpenAI model does. Any reason not listed
 * (malformed_model_output, malformed_tool_use, one Bedrock adds later) passes through as is,
 * which runlog records as an unknown stop.
 */
export function stopFor(stopReason: string, hasToolCalls: boolean): KnownStop | string {
  switch (stopReason) {
    case "end_turn":
    case "stop_sequence":
    case "tool_use":
      return hasToolCalls ? "tool_calls" : "stop";
    case "max_tokens":
      return "max_output";
    case "guardrail_intervened":
    case "content_filtered":
      return "refusal";
    case "model_context_window_exceeded":
      return "context_full";
    default:
      return stopReason;
  }
}
