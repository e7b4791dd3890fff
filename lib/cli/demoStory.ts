import type { RunEvent } from "../core/events.ts";
import { clip } from "./terminal.ts";

/** One tool call of a run, as its log tells it. */
export interface CallStory {
  callId: string;
  /** `name(arguments)`, for a person. */
  label: string;
  /** Seq of its tool_started, if it had one. */
  startedAt?: number;
  /** Its result: run by the tool (`finished`, `failed`) or answered by runlog (`interrupted`). */
  result?: { seq: number; how: "finished" | "failed" | "interrupted" };
}

/** Every tool call of a run, in the order the model asked for them, with what the log says became of each. */
export function callStories(events: readonly RunEvent[]): CallStory[] {
  const calls = new Map<string, CallStory>();
  for (const event of events) {
    if (event.type === "model_response") {
      for (const call of event.toolCalls)
        calls.set(call.id, { callId: call.id, label: `${call.name}(${clip(call.arguments, 60)})` });
    } else if (event.type === "tool_started") {
      const call = calls.get(event.callId);
      if (call) call.startedAt = event.seq;
    } else if (event.type === "tool_result") {
      const call = calls.get(event.callId);
      const how = event.interrupted ? "interrupted" : event.isError ? "failed" : "finished";
      if (call) call.result = { seq: event.seq, how };
    }
  }
  return [...calls.values()];
}

/** What the log held when the process died: the calls with a result, and those started with none. */
export function atCrash(events: readonly RunEvent[]): string[] {
  const lines: string[] = [];
  for (const call of callStories(events)) {
    if (call.result) lines.push(`${call.label}: ${call.result.how} (#${call.result.seq})`);
    else if (call.startedAt !== undefined)
      lines.push(`${call.label}: started (#${call.startedAt}), no result: it may or may not have run`);
    else lines.push(`${call.label}: asked for, never started`);
  }
  return lines;
}

/**
 * What the resume did, from the whole log and the seq the crashed process
 * had reached: each call open at the crash, and each call made after it.
 */
export function afterResume(events: readonly RunEvent[], crashedAt: number): string[] {
  const lines: string[] = [];
  for (const call of callStories(events)) {
    const { result, startedAt } = call;
    if (result === undefined || result.seq <= crashedAt) continue;
    const startedBefore = startedAt !== undefined && startedAt <= crashedAt;
    if (result.how === "interrupted") {
      lines.push(`${call.label} was answered as interrupted (#${result.seq}), not run again`);
    } else if (startedBefore) {
      lines.push(`${call.label} was run again (#${result.seq}): its tool is idempotent`);
    } else {
      lines.push(`${call.label} ran after the resume: ${result.how} (#${result.seq})`);
    }
  }
  const answers = events.filter((e) => e.seq > crashedAt && e.type === "model_response").length;
  lines.push(`the model was called ${answers} time(s) after the resume`);
  return lines;
}
