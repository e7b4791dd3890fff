import type { ConverseStreamOutput } from "@aws-sdk/client-bedrock-runtime";
import { ownCallIds } from "../../core/callIdCheck.ts";
import { ModelRejectedError } from "../../core/errors.ts";
import type { ToolCall, Usage } from "../../core/eventFields.ts";
import type { ModelReply } from "../../ports/model.ts";
import { stopFor } from "./stop.ts";

interface PartialCall {
  id: string;
  name: string;
  input: string;
  /** The content block the call is in, named in an error. */
  block: number | undefined;
}

/**
 * Builds one reply from the events of a ConverseStream. Tool calls are assembled by
 * `contentBlockIndex`: a toolUse block's id and name come in its start event and its input as
 * JSON text over any number of deltas, which is kept as the text the model sent (bad JSON
 * included) for the tool's validation to judge, as the OpenAI model does. Each start begins a
 * call of its own, even at an index that held one already, so two calls are never merged into one.
 */
export class ConverseAssembler {
  private text = "";
  /** The calls in the order their blocks started. */
  private readonly calls: PartialCall[] = [];
  /** The call each content block index holds now. */
  private readonly blocks = new Map<number, PartialCall>();
  private lastCall: PartialCall | undefined;
  private stopReason: string | undefined;
  private usage: Usage | undefined;

  /** @param spec names the model in an error. */
  constructor(private readonly spec: string) {}

  /** Take one event; returns the text it adds to the reply, "" when none (the SDK throws an exception event itself). */
  add(event: ConverseStreamOutput): string {
    if (event.contentBlockStart) {
      const { start, contentBlockIndex } = event.contentBlockStart;
      if (start?.toolUse) {
        const call = this.newCall(contentBlockIndex);
        call.id = start.toolUse.toolUseId ?? "";
        call.name = start.toolUse.name ?? "";
      }
      return "";
    }
    if (event.contentBlockDelta) {
      const { delta, contentBlockIndex } = event.contentBlockDelta;
      if (delta?.toolUse?.input) this.callAt(contentBlockIndex).input += delta.toolUse.input;
      if (delta?.text) {
        this.text += delta.text;
        return delta.text;
      }
      return "";
    }
    if (event.messageStop) {
      this.stopReason = event.messageStop.stopReason ?? "end_turn";
      return "";
    }
    if (event.metadata?.usage) {
      const { inputTokens, outputTokens } = event.metadata.usage;
      this.usage = { inputTokens: inputTokens ?? 0, outputTokens: outputTokens ?? 0 };
    }
    return "";
  }

  /** The server said how the response ended (the metadata event with usage may still follow). */
  get finished(): boolean {
    return this.stopReason !== undefined;
  }

  /** Text worth keeping if the stream breaks now. */
  get partialText(): string {
    return this.text;
  }

  /** The reply for a response the server finished. */
  reply(): ModelReply {
    const stop = stopFor(this.stopReason ?? "end_turn", this.calls.length > 0);
    return this.withUsage({
      text: this.text,
      // Calls only count on a turn that ends to run them; a truncated or refused turn's calls are partial.
      toolCalls: stop === "tool_calls" ? this.completeCalls() : [],
      stop,
    });
  }

  /** The reply for a response cut off by a failure: its text so far, without the partial calls. */
  interrupted(): ModelReply {
    return this.withUsage({ text: this.text, toolCalls: [], stop: "interrupted" });
  }

  private newCall(block: number | undefined): PartialCall {
    const call: PartialCall = { id: "", name: "", input: "", block };
    this.calls.push(call);
    if (block !== undefined) this.blocks.set(block, call);
    this.lastCall = call;
    return call;
  }

  /** The call a delta's input belongs to: its block's, else (no index) the last one begun. */
  private callAt(block: number | undefined): PartialCall {
    const call = block === undefined ? this.lastCall : this.blocks.get(block);
    // Input for a block that never started a call: kept as a call of its own, refused for its missing id.
    return call ?? this.newCall(block);
  }

  private completeCalls(): ToolCall[] {
    const calls = this.calls.map((call, position) => {
      const missing = call.id.length === 0 ? "id" : call.name.length === 0 ? "name" : undefined;
      if (missing !== undefined) {
        const field = missing === "id" ? "toolUseId" : "name";
        const block = call.block === undefined ? "" : ` (content block ${call.block})`;
        throw new ModelRejectedError(
          `${this.spec} returned a reply runlog cannot record: reply.toolCalls[${position}].${missing} is missing: the model sent a toolUse${block} without its ${field}`,
        );
      }
      // A call with no input deltas takes no arguments.
      return { id: call.id, name: call.name, arguments: call.input.length > 0 ? call.input : "{}" };
    });
    return [...ownCallIds(this.spec, calls)];
  }

  private withUsage(reply: ModelReply): ModelReply {
    return this.usage ? { ...reply, usage: this.usage } : reply;
  }
}
