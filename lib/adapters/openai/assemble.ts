import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { ownCallIds } from "../../core/callIdCheck.ts";
import { ModelUnavailableError } from "../../core/errors.ts";
import type { ToolCall, Usage } from "../../core/eventFields.ts";
import type { ModelReply } from "../../ports/model.ts";
import { stopFor } from "./stop.ts";

/** Where the deprecated single `function_call` delta is assembled, apart from indexed tool calls. */
const LEGACY_FUNCTION_CALL = -1;

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Builds one reply from the chunks of a streamed Chat Completion (choice 0).
 * Tool calls are assembled by `index` because a server may split one call's
 * id, name and arguments over many chunks and interleave parallel calls.
 */
export class ReplyAssembler {
  private text = "";
  private refusal = "";
  private readonly calls = new Map<number, PartialCall>();
  private finishReason: string | null = null;
  private usage: Usage | undefined;

  /**
   * @param spec names the model in an error.
   * @param fallbackId names a call whose server sent no id (some local servers do not).
   */
  constructor(
    private readonly spec: string,
    private readonly fallbackId: (index: number) => string,
  ) {}

  /** Take one chunk; returns the text it adds to the reply (content, or a refusal's words), "" when none. */
  add(chunk: ChatCompletionChunk): string {
    if (chunk.usage) {
      this.usage = {
        inputTokens: chunk.usage.prompt_tokens ?? 0,
        outputTokens: chunk.usage.completion_tokens ?? 0,
      };
    }
    const choice = chunk.choices?.[0];
    if (!choice) return ""; // the usage chunk has no choices
    const delta = choice.delta;
    if (delta?.content) this.text += delta.content;
    if (delta?.refusal) this.refusal += delta.refusal;
    delta?.tool_calls?.forEach((part, position) => {
      this.addCallDelta(part.index ?? position, part.id, part.function?.name, part.function?.arguments);
    });
    if (delta?.function_call) {
      const { name, arguments: args } = delta.function_call;
      this.addCallDelta(LEGACY_FUNCTION_CALL, undefined, name, args);
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return (delta?.content ?? "") + (delta?.refusal ?? "");
  }

  /** The server said how the response ended (a usage chunk may still follow). */
  get finished(): boolean {
    return this.finishReason !== null;
  }

  /** Text worth keeping if the stream breaks now. */
  get partialText(): string {
    return this.text.length > 0 ? this.text : this.refusal;
  }

  /** The reply for a response the server finished. */
  reply(): ModelReply {
    const refused = this.refusal.length > 0;
    const stop = stopFor({
      finishReason: this.finishReason ?? "stop",
      hasToolCalls: this.calls.size > 0,
      refused,
    });
    return this.withUsage({
      text: refused ? this.refusal : this.text,
      // Calls only count on a turn that ends to run them; a truncated or refused turn's calls are partial.
      toolCalls: stop === "tool_calls" ? this.completeCalls() : [],
      stop,
    });
  }

  /** The reply for a response cut off by a failure: its text so far, without the partial calls. */
  interrupted(): ModelReply {
    return this.withUsage({ text: this.partialText, toolCalls: [], stop: "interrupted" });
  }

  private addCallDelta(index: number, id?: string | null, name?: string | null, args?: string | null) {
    let call = this.calls.get(index);
    if (!call) {
      call = { id: "", name: "", arguments: "" };
      this.calls.set(index, call);
    }
    // Servers that repeat the id or name in later deltas send the whole value, so assign, never append.
    if (id) call.id = id;
    if (name) call.name = name;
    if (args) call.arguments += args;
  }

  private completeCalls(): ToolCall[] {
    const calls = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call], position) => {
        if (call.name.length === 0) {
          throw new ModelUnavailableError(`the model sent tool call ${index} without a name`);
        }
        return { id: call.id || this.fallbackId(position), name: call.name, arguments: call.arguments };
      });
    return [...ownCallIds(this.spec, calls)];
  }

  private withUsage(reply: ModelReply): ModelReply {
    return this.usage ? { ...reply, usage: this.usage } : reply;
  }
}
