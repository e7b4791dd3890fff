import fc from "fast-check";
import type { ToolCall } from "../../../lib/core/eventFields.ts";
import type { NewEvent } from "../../../lib/core/events.ts";
import { type Batch, type Expected, expectedFor, type RunState } from "./resumeOracle.ts";

export type { Expected } from "./resumeOracle.ts";

/** A model of one run: each step appends an event a correct runlog could write next. */
class RunModel {
  readonly events: NewEvent[] = [{ type: "run_started", runId: "r", agent: "demo", model: "m", input: "go" }];
  readonly expectations: Expected[] = [];
  private generation = 1;
  private turn = 0;
  private phase: "model" | "batch" | "ended" | "cancelled" = "model";
  private modelKind = "call_model";
  private finalStop = "stop";
  private batch: Batch | undefined;

  constructor() {
    this.expectations.push(expectedFor(this.state()));
  }

  /** Apply the choice-th of the events allowed now (modulo their number); false once nothing may follow. */
  step(choice: number): boolean {
    const options = this.options();
    if (options.length === 0) return false;
    options[choice % options.length]!(Math.floor(choice / options.length));
    this.expectations.push(expectedFor(this.state()));
    return true;
  }

  private state(): RunState {
    return {
      phase: this.phase,
      modelKind: this.modelKind,
      finalStop: this.finalStop,
      ...(this.batch ? { batch: this.batch } : {}),
    };
  }

  private add(event: NewEvent): void {
    this.events.push(event);
  }

  private options(): ((more: number) => void)[] {
    const send = () => {
      this.add({
        type: "resumed",
        generation: ++this.generation,
        kind: "call_model",
        description: "d",
        input: "more",
      });
      this.toModel("call_model");
    };
    const marker = () =>
      this.add({ type: "resumed", generation: ++this.generation, kind: "call_model", description: "d" });
    // A cancel ends the story, so it is one choice in five of this slot (a marker otherwise): logs stay long.
    const cancel = (more: number) => {
      if (more % 5 !== 0) return marker();
      this.add({ type: "cancelled", by: "ops" });
      this.phase = "cancelled";
    };
    switch (this.phase) {
      case "cancelled":
        return [];
      case "ended":
        return [send];
      case "model":
        return [
          (more) => this.respond(more),
          (more) => this.finish(["stop", "refusal", "context_full", "content_filter"][more % 4]!),
          () => this.cut("max_output", "continue_response"),
          () => this.cut("interrupted", "retry_response"),
          () => {
            this.add({ type: "model_failed", error: { name: "E", message: "down" }, retryable: true });
            this.turn++;
            this.modelKind = "call_model";
          },
          () => {
            this.add({ type: "user_message", text: "and then?" });
            this.modelKind = "call_model";
          },
          marker,
          send,
          cancel,
        ];
      case "batch": {
        const b = this.batch!;
        const open = b.calls.filter((id) => !b.results.has(id));
        const cleared = (id: string) => !b.approvals.has(id) || b.decisions.get(id) === true;
        const startable = open.filter((id) => !b.started.has(id) && cleared(id));
        const answerable = open.filter((id) => b.started.has(id) || b.decisions.has(id) || cleared(id));
        const undecided = open.filter((id) => b.approvals.has(id) && !b.decisions.has(id));
        const pick = (ids: string[], more: number) => ids[more % ids.length]!;
        return [
          ...(startable.length > 0
            ? [
                (more: number) => {
                  const callId = pick(startable, more);
                  b.started.add(callId);
                  this.add({ type: "tool_started", callId, name: "echo" });
                },
              ]
            : []),
          ...(answerable.length > 0
            ? [
                (more: number) => {
                  const callId = pick(answerable, more);
                  b.results.add(callId);
                  this.add({
                    type: "tool_result",
                    callId,
                    name: "echo",
                    content: "ok",
                    isError: more % 2 === 1,
                  });
                  if (b.results.size === b.calls.length) this.toModel("call_model");
                },
              ]
            : []),
          ...(undecided.length > 0
            ? [
                (more: number) => {
                  const callId = pick(undecided, more);
                  const approved = Math.floor(more / undecided.length) % 2 === 0;
                  b.decisions.set(callId, approved);
                  this.add({ type: "tool_decided", callId, approved, by: "ana" });
                },
              ]
            : []),
          marker,
          send,
          cancel,
        ];
      }
    }
  }

  private toModel(kind: string): void {
    this.phase = "model";
    this.modelKind = kind;
    this.batch = undefined;
  }

  private respond(more: number): void {
    const count = 1 + (more % 3);
    const calls: ToolCall[] = Array.from({ length: count }, (_, i) => ({
      id: `call_${this.turn}_${i}`,
      name: "echo",
      arguments: "{}",
    }));
    const approvals = calls.filter((_, i) => (Math.floor(more / 3) >> i) % 2 === 1).map((c) => c.id);
    this.turn++;
    this.add({
      type: "model_response",
      text: "",
      toolCalls: calls,
      stop: "tool_calls",
      ...(approvals.length > 0 ? { approvals } : {}),
    });
    this.phase = "batch";
    const ids = calls.map((c) => c.id);
    this.batch = {
      calls: ids,
      approvals: new Set(approvals),
      started: new Set(),
      results: new Set(),
      decisions: new Map(),
    };
  }

  private finish(stop: string): void {
    this.turn++;
    this.add({ type: "model_response", text: "answer", toolCalls: [], stop });
    this.phase = "ended";
    this.finalStop = stop;
  }

  private cut(stop: string, kind: string): void {
    this.turn++;
    this.add({ type: "model_response", text: "part", toolCalls: [], stop });
    this.modelKind = kind;
  }
}

/** A correct run with approvals, decisions, sends, markers and cancels, and what each of its prefixes implies. */
export const lifecycleLog: fc.Arbitrary<{ events: NewEvent[]; expectations: Expected[] }> = fc
  .array(fc.nat({ max: 10_000 }), { minLength: 4, maxLength: 40, size: "max" })
  .map((choices) => {
    const model = new RunModel();
    for (const choice of choices) if (!model.step(choice)) break;
    return { events: model.events, expectations: model.expectations };
  });
