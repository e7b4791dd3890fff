import type { KnownStop } from "../../core/eventFields.ts";

/** What the stream said about how the response ended. */
export interface Ending {
  /** The choice's `finish_reason`: OpenAI's words, or any other string a compatible server sends. */
  finishReason: string;
  /** Whether complete tool calls were assembled. */
  hasToolCalls: boolean;
  /** Whether the message carried a non-empty `refusal`. */
  refused: boolean;
}

/**
 * runlog's stop word for a finished response. Any finish reason not listed here
 * is passed through as is, which runlog records as an unknown stop.
 */
export function stopFor({ finishReason, hasToolCalls, refused }: Ending): KnownStop | string {
  if (refused) return "refusal";
  switch (finishReason) {
    // Some servers (older Ollama, vLLM parsers) end a tool-calling turn with "stop".
    case "stop":
    case "tool_calls":
    case "function_call":
      return hasToolCalls ? "tool_calls" : "stop";
    case "length":
      return "max_output";
    case "content_filter":
      return "refusal";
    default:
      return finishReason;
  }
}
