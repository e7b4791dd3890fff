import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import type { ChatMessage } from "../../core/messages.ts";
import type { ModelRequest, ToolSpec } from "../../ports/model.ts";
import { callIdForProvider, OPENAI_CALL_IDS } from "../callIds.ts";
import { toResponseFormat } from "./responseFormat.ts";
import { chatSettings, type MaxTokensField } from "./settings.ts";

/** The streamed Chat Completions request for one runlog model call, with the run's model settings. */
export function toChatRequest(
  model: string,
  request: ModelRequest,
  maxTokensField?: MaxTokensField,
): ChatCompletionCreateParamsStreaming {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.instructions.length > 0) messages.push({ role: "system", content: request.instructions });
  for (const message of request.messages) messages.push(toProviderMessage(message));
  const body: ChatCompletionCreateParamsStreaming = {
    ...chatSettings(request.settings, maxTokensField),
    model,
    messages,
    stream: true,
    // Without this the stream carries no token counts.
    stream_options: { include_usage: true },
  };
  // Several providers reject an empty tools array, so an agent without tools sends none.
  if (request.tools.length > 0) body.tools = request.tools.map(toProviderTool);
  // An agent with an output schema asks for it; the answer is checked against the agent's schema anyway.
  if (request.output) body.response_format = toResponseFormat(request.output);
  return body;
}

export function toProviderMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case "user":
      return { role: "user", content: message.content };
    case "assistant":
      if (message.toolCalls.length === 0) return { role: "assistant", content: message.content };
      return {
        role: "assistant",
        // OpenAI documents null content for a turn that only calls tools; some servers reject "".
        content: message.content.length > 0 ? message.content : null,
        tool_calls: message.toolCalls.map((call) => ({
          id: callIdForProvider(call.id, OPENAI_CALL_IDS),
          type: "function",
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    case "tool":
      // Chat Completions has no error flag on a tool result: the content itself says what went wrong.
      return {
        role: "tool",
        tool_call_id: callIdForProvider(message.toolCallId, OPENAI_CALL_IDS),
        content: message.content,
      };
    default: {
      const unknown: never = message;
      throw new Error(`unhandled message ${JSON.stringify(unknown)}`);
    }
  }
}

export function toProviderTool(tool: ToolSpec): ChatCompletionTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}
