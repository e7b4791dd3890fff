import type {
  ContentBlock,
  ConversationRole,
  ConverseStreamCommandInput,
  Message,
  Tool,
} from "@aws-sdk/client-bedrock-runtime";
import type { ToolCall } from "../../core/eventFields.ts";
import type { ChatMessage } from "../../core/messages.ts";
import { outputInstruction } from "../../core/structuredOutput.ts";
import type { ModelRequest, ToolSpec } from "../../ports/model.ts";
import { BEDROCK_CALL_IDS, callIdForProvider } from "../callIds.ts";
import { converseSettings } from "./settings.ts";

/** The key a call's arguments are sent back under when they were not a JSON object (see toolInput). */
export const UNPARSED_ARGUMENTS = "unparsed_arguments";

/** The ConverseStream request for one runlog model call, with the run's model settings. */
export function toConverseRequest(modelId: string, request: ModelRequest): ConverseStreamCommandInput {
  const input: ConverseStreamCommandInput = {
    ...converseSettings(request.settings),
    modelId,
    messages: toConverseMessages(request.messages),
  };
  // Converse refuses a blank system block, so an agent without instructions sends none.
  const system = request.instructions.length > 0 ? [{ text: request.instructions }] : [];
  // Converse's own JSON Schema mode (outputConfig) is not served by every model, and a model that
  // lacks it refuses the request: the wanted shape is asked for in words, which every model takes,
  // and runlog checks the answer against the agent's schema either way.
  if (request.output) system.push({ text: outputInstruction(request.output) });
  if (system.length > 0) input.system = system;
  // Converse refuses an empty tools list, so an agent without tools sends no toolConfig.
  if (request.tools.length > 0) input.toolConfig = { tools: request.tools.map(toConverseTool) };
  return input;
}

/**
 * runlog's messages as Converse's: tool results are content blocks of a user message, and roles
 * must alternate, so consecutive messages of one role (the results of parallel calls, a note after
 * them) become one message. Converse refuses blank text, so an empty text is left out, and a
 * message left with nothing is dropped.
 */
export function toConverseMessages(messages: readonly ChatMessage[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    const [role, content] = toBlocks(message);
    if (content.length === 0) continue;
    const last = out.at(-1);
    if (last?.role === role) last.content = [...(last.content ?? []), ...content];
    else out.push({ role, content });
  }
  return out;
}

function toBlocks(message: ChatMessage): [ConversationRole, ContentBlock[]] {
  switch (message.role) {
    case "user":
      return ["user", textBlocks(message.content)];
    case "assistant":
      return ["assistant", [...textBlocks(message.content), ...message.toolCalls.map(toolUseBlock)]];
    case "tool":
      return [
        "user",
        [
          {
            toolResult: {
              toolUseId: callIdForProvider(message.toolCallId, BEDROCK_CALL_IDS),
              content: [{ text: message.content.length > 0 ? message.content : "(no output)" }],
              status: message.isError ? "error" : "success",
            },
          },
        ],
      ];
    default: {
      const unknown: never = message;
      throw new Error(`unhandled message ${JSON.stringify(unknown)}`);
    }
  }
}

const textBlocks = (text: string): ContentBlock[] => (text.length > 0 ? [{ text }] : []);

function toolUseBlock(call: ToolCall): ContentBlock {
  return {
    toolUse: {
      toolUseId: callIdForProvider(call.id, BEDROCK_CALL_IDS),
      name: call.name,
      input: toolInput(call.arguments) as Record<string, never>,
    },
  };
}

/**
 * A call's input as Converse takes it back, a JSON object. Arguments the model sent that are not
 * one (cut off, not JSON) are kept as their text under UNPARSED_ARGUMENTS, so the model sees what
 * it sent beside the tool's error about it.
 */
export function toolInput(args: string): Record<string, unknown> {
  return jsonObject(args) ?? { [UNPARSED_ARGUMENTS]: args };
}

/** `text` parsed, if it is a JSON object; undefined for anything else, invalid JSON included. */
function jsonObject(text: string): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : undefined;
}

export function toConverseTool(tool: ToolSpec): Tool {
  return {
    toolSpec: {
      name: tool.name,
      description: tool.description,
      // The SDK types a document loosely; a JSON Schema object is one.
      inputSchema: { json: tool.parameters as Record<string, never> },
    },
  };
}
