import type { ConverseStreamOutput } from "@aws-sdk/client-bedrock-runtime";
import { ownCallIds } from "../../core/callIdCheck.ts";
import { ModelUnavailableError } from "../../core/errors.ts";
import type { ToolCall, Usage } from "../../core/eventFields.ts";
import type { ModelReply } from "../../ports/model.ts";
import { stopFor } from "./stop.ts";

interface PartialCall {
  id: string;
  name: string;
  input: string;
}

/**
 * Builds one reply from the events of a ConverseStream. Tool calls are assembled by
 * `contentBlockIndex`: a toolUse block's id and name come in its start event and its input as
 * JSON text over any number of deltas, which is kept as the text the model sent (bad JSON
 * included) for the tool's validation to judge, as the OpenAI model does.
 */
export class ConverseAssembler {
  private text = "";
  private readonly calls = new Map<number, PartialCall>();
  private stopReason: string | undefined;
  private usage: Usage | undefined;

  /** @param spec names the model in an error. */
  constructor(private readonly spec: string) {}

  /** Take one event; returns the text it adds to the reply, "" when none (the SDK throws an exception event itself). */
  add(event: ConverseStreamOutput): string {
    if (event.contentBlockStart) {
      const { start, contentBlockIndex } = event.contentBlockStart;
      if (start?.toolUse) {
        this.call(contentBlockIndex).id = start.toolUse.toolUseId ?? "";
        this.call(contentBlockIndex).name = start.toolUse.name ?? "";
      }
      return "";
    }
    if (event.contentBlockDelta) {
      const { delta, contentBlockIndex } = event.contentBlockDelta;
      if (delta?.toolUse?.input) this.call(contentBlockIndex).input += delta.toolUse.input;
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
    const stop = stopFor(this.stopReason ?? "end_turn", this.calls.size > 0);
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

  private call(index: number | undefined): PartialCall {
    const at = index ?? 0;
    let call = this.calls.get(at);
    if (!call) {
      call = { id: "", name: "", input: "" };
      this.calls.set(at, call);
    }
    return call;
  }

  private completeCalls(): ToolCall[] {
    const calls = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => {
        if (call.name.length === 0 || call.id.length === 0) {
          throw new ModelUnavailableError(`the model sent tool call ${index} without its id or name`);
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
