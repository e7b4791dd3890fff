import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { ownCallIds } from "../../core/callIdCheck.ts";
import { ModelRejectedError } from "../../core/errors.ts";
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

/** One tool call fragment of a delta, as servers send it: `index` or `id` may be missing. */
interface CallDelta {
  index?: number | null | undefined;
  id?: string | null | undefined;
  name?: string | null | undefined;
  arguments?: string | null | undefined;
}

/**
 * Builds one reply from the chunks of a streamed Chat Completion (choice 0).
 * Tool calls are assembled by `index` because a server may split one call's
 * id, name and arguments over many chunks and interleave parallel calls. Not
 * every server numbers them as OpenAI does: Gemini's endpoint sends no `index`,
 * Ollama sends `index: 0` for every call, each call whole with its own id. So a
 * fragment with an id other than the one its index holds begins a new call, one
 * with no index is matched by its id, and one with neither continues the last call.
 */
export class ReplyAssembler {
  private text = "";
  private refusal = "";
  /** The calls in the order the server began them. */
  private readonly calls: PartialCall[] = [];
  /** The call each index holds now (a new id at an index begins a new call there). */
  private readonly slots = new Map<number, PartialCall>();
  private lastCall: PartialCall | undefined;
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
    const inThisChunk = new Set<PartialCall>();
    for (const part of delta?.tool_calls ?? []) {
      const { name, arguments: args } = part.function ?? {};
      inThisChunk.add(
        this.addCallDelta({ index: part.index, id: part.id, name, arguments: args }, inThisChunk),
      );
    }
    if (delta?.function_call) {
      const { name, arguments: args } = delta.function_call;
      this.addCallDelta({ index: LEGACY_FUNCTION_CALL, name, arguments: args }, inThisChunk);
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
      hasToolCalls: this.calls.length > 0,
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

  /** Add a fragment to the call it belongs to (see the class comment); returns that call. */
  private addCallDelta(part: CallDelta, inThisChunk: ReadonlySet<PartialCall>): PartialCall {
    const call = this.callFor(part, inThisChunk);
    // Servers that repeat the id or name in later deltas send the whole value, so assign, never append.
    if (part.id) call.id = part.id;
    if (part.name) call.name = part.name;
    if (part.arguments) call.arguments += part.arguments;
    this.lastCall = call;
    return call;
  }

  /** The call a fragment continues, or a new one (see the class comment). */
  private callFor({ index, id, name }: CallDelta, inThisChunk: ReadonlySet<PartialCall>): PartialCall {
    const indexed = typeof index === "number";
    const known = indexed
      ? this.slots.get(index)
      : id
        ? this.calls.find((call) => call.id === id)
        : this.lastCall;
    // Another id where a call stands is another call; so are two fragments with neither index nor id
    // in one chunk, as their places in it say, and one with neither that names a tool after a call
    // that has its name: a name begins a call, later fragments only carry arguments.
    const another =
      (id && known?.id && known.id !== id) ||
      (!indexed && !id && known && (inThisChunk.has(known) || (name && known.name)));
    if (known && !another) return known;
    const call: PartialCall = { id: "", name: "", arguments: "" };
    this.calls.push(call);
    if (indexed) this.slots.set(index, call);
    return call;
  }

  private completeCalls(): ToolCall[] {
    const calls = this.calls.map((call, position) => {
      if (call.name.length === 0) {
        const which = call.id ? ` (id ${JSON.stringify(call.id)})` : "";
        throw new ModelRejectedError(
          `${this.spec} returned a reply runlog cannot record: reply.toolCalls[${position}].name is missing: the server sent tool call ${position}${which} without the name of the tool to run`,
        );
      }
      return { id: call.id || this.fallbackId(position), name: call.name, arguments: call.arguments };
    });
    return [...ownCallIds(this.spec, calls)];
  }

  private withUsage(reply: ModelReply): ModelReply {
    return this.usage ? { ...reply, usage: this.usage } : reply;
  }
}
