import { describe, expect, it } from "vitest";
import { toConverseMessages } from "../../lib/adapters/bedrock/request.ts";
import {
  BEDROCK_CALL_IDS,
  callIdForProvider,
  callIdFromProvider,
  OPENAI_CALL_IDS,
} from "../../lib/adapters/callIds.ts";
import { toProviderMessage } from "../../lib/adapters/openai/request.ts";
import type { ChatMessage } from "../../lib/core/messages.ts";

const LONG = `call_${"x".repeat(60)}`; // 65 characters: too long for both
const DOTTED = "toolu.01:abc"; // characters Bedrock refuses

describe("call ids sent to a provider", () => {
  it.each([
    ["an OpenAI id on Bedrock", "call_abc123", BEDROCK_CALL_IDS, "call_abc123"],
    [
      "a Bedrock id on OpenAI",
      "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
      OPENAI_CALL_IDS,
      "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
    ],
  ])("keeps %s", (_, id, rule, expected) => {
    expect(callIdForProvider(id, rule)).toBe(expected);
  });

  it.each([
    ["too long for Bedrock", LONG, BEDROCK_CALL_IDS],
    ["too long for OpenAI", LONG.slice(0, 41), OPENAI_CALL_IDS],
    ["with characters Bedrock refuses", DOTTED, BEDROCK_CALL_IDS],
  ])("maps an id %s to one it accepts, the same each time, and back", (_, id, rule) => {
    const mapped = callIdForProvider(id, rule);
    expect(mapped).not.toBe(id);
    expect(mapped.length).toBeLessThanOrEqual(rule.maxLength);
    expect(mapped).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(callIdForProvider(id, rule)).toBe(mapped);
    expect(callIdFromProvider(mapped, ["other", id], rule)).toBe(id);
  });

  it("maps two different ids to two different ids", () => {
    expect(callIdForProvider(`${LONG}a`, BEDROCK_CALL_IDS)).not.toBe(
      callIdForProvider(`${LONG}b`, BEDROCK_CALL_IDS),
    );
  });
});

describe("a call and its result stay paired in each provider's request", () => {
  const history: ChatMessage[] = [
    { role: "user", content: "Weather?" },
    { role: "assistant", content: "", toolCalls: [{ id: DOTTED, name: "get_weather", arguments: "{}" }] },
    { role: "tool", toolCallId: DOTTED, name: "get_weather", content: "sunny", isError: false },
  ];

  it("on Bedrock: the toolUse and its toolResult carry one valid id", () => {
    const [, assistant, results] = toConverseMessages(history);
    const useId = assistant?.content?.[0]?.toolUse?.toolUseId;
    expect(useId).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(results?.content?.[0]?.toolResult?.toolUseId).toBe(useId);
  });

  it("on OpenAI: the tool call and the tool message carry one id", () => {
    const long = history.map((message) =>
      message.role === "assistant"
        ? { ...message, toolCalls: [{ id: LONG, name: "get_weather", arguments: "{}" }] }
        : message.role === "tool"
          ? { ...message, toolCallId: LONG }
          : message,
    );
    const assistant = toProviderMessage(long[1]!) as { tool_calls: Array<{ id: string }> };
    const tool = toProviderMessage(long[2]!) as { tool_call_id: string };
    expect(assistant.tool_calls[0]!.id.length).toBeLessThanOrEqual(40);
    expect(tool.tool_call_id).toBe(assistant.tool_calls[0]!.id);
  });
});
