import type { ResumeKind, ToolCall } from "../../lib/core/eventFields.ts";
import type { NewEvent, RunEvent } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";

const AT = new Date("2025-01-01T00:00:00.000Z");

/** A tool call as tests write it: `call("a")` is call id `a` of the `echo` tool. */
export const call = (id: string, name = "echo", args = "{}"): ToolCall => ({ id, name, arguments: args });

/** Builds a valid stamped log (seq 1, 2, 3 …), one event per method; `build()` returns a copy. */
export class LogBuilder {
  private readonly events: RunEvent[] = [];

  /** Append any event, stamped with the next seq. */
  add(event: NewEvent): this {
    this.events.push(stamp(event, this.events.length + 1, AT));
    return this;
  }

  /** `run_started` with the user's first message. */
  start(input = "hello"): this {
    return this.add({ type: "run_started", runId: "run-1", agent: "demo", model: "scripted:demo", input });
  }

  user(text = "and then?"): this {
    return this.add({ type: "user_message", text });
  }

  /** A response asking for tools; each id becomes a call of the `echo` tool. */
  calls(...ids: string[]): this {
    return this.add({
      type: "model_response",
      text: "",
      toolCalls: ids.map((id) => call(id)),
      stop: "tool_calls",
    });
  }

  /** A response without tool calls. */
  respond(text: string, stop = "stop"): this {
    return this.add({ type: "model_response", text, toolCalls: [], stop });
  }

  /** A final answer the agent's output schema rejected: `retry` asks the model again. */
  rejected(attempt: number, retry = true, text = "not json"): this {
    return this.add({
      type: "output_rejected",
      text,
      problems: "the answer is not JSON",
      attempt,
      retry,
      model: "scripted:test",
    });
  }

  failed(message = "connection reset"): this {
    return this.add({
      type: "model_failed",
      error: { name: "ModelUnavailableError", message },
      retryable: true,
    });
  }

  started(callId: string): this {
    return this.add({ type: "tool_started", callId, name: "echo" });
  }

  result(callId: string, content = `result of ${callId}`, isError = false): this {
    return this.add({ type: "tool_result", callId, name: "echo", content, isError });
  }

  /** `tool_started` then `tool_result` for each call, one after the other. */
  ran(...callIds: string[]): this {
    for (const id of callIds) this.started(id).result(id);
    return this;
  }

  /** A response whose calls are given whole (a transfer call among them: `call("t", "transfer_to_billing")`). */
  callsOf(...calls: ToolCall[]): this {
    return this.add({ type: "model_response", text: "", toolCalls: calls, stop: "tool_calls" });
  }

  /** The `transferred` event that answers call `callId`: the run goes on under `to`. */
  transferred(callId: string, to = "billing", from = "demo"): this {
    return this.add({
      type: "transferred",
      callId,
      name: `transfer_to_${to}`,
      from,
      to,
      model: `scripted:${to}`,
    });
  }

  resumed(generation: number, kind: ResumeKind = "call_model"): this {
    return this.add({ type: "resumed", generation, kind, description: "resumed by a test" });
  }

  /** A response asking for tools, of which `needApproval` wait for a person's decision. */
  approvalCalls(ids: string[], needApproval: string[]): this {
    return this.add({
      type: "model_response",
      text: "",
      toolCalls: ids.map((id) => call(id)),
      stop: "tool_calls",
      approvals: needApproval,
    });
  }

  decided(callId: string, approved: boolean, by = "ana", reason?: string): this {
    return this.add({ type: "tool_decided", callId, approved, by, ...(reason ? { reason } : {}) });
  }

  cancelled(by = "ana"): this {
    return this.add({ type: "cancelled", by });
  }

  /** A new user message that starts generation `generation` (what send and fork-with-input write). */
  send(generation: number, input = "one more thing"): this {
    return this.add({ type: "resumed", generation, kind: "call_model", description: "a new message", input });
  }

  build(): RunEvent[] {
    return [...this.events];
  }
}

/** A new builder with nothing in it; most logs begin with `.start()`. */
export const log = (): LogBuilder => new LogBuilder();

/** The same events with their seqs replaced, to make gaps and duplicates. */
export function withSeqs(events: readonly RunEvent[], seqs: readonly number[]): RunEvent[] {
  return events.map((event, i) => ({ ...event, seq: seqs[i] ?? event.seq }));
}
