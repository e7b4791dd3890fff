import { assertNever } from "../core/assertNever.ts";
import type { Usage } from "../core/eventFields.ts";
import type { RunEvent } from "../core/events.ts";
import { describeSettings } from "../core/modelSettingNames.ts";
import type { ModelSettings } from "../core/modelSettings.ts";
import { isCallParent } from "../core/subagents.ts";
import { clip } from "./terminal.ts";

const took = (ms: number | undefined) => (ms === undefined ? "" : ` (${Math.round(ms)} ms)`);

/** A model turn's timing and tokens, what of them it recorded: ` (812 ms, 40→12 tokens)`. */
function turnFigures(event: { ms?: number | undefined; usage?: Usage | undefined }): string {
  const parts = [
    ...(event.ms === undefined ? [] : [`${Math.round(event.ms)} ms`]),
    ...(event.usage ? [`${event.usage.inputTokens}→${event.usage.outputTokens} tokens`] : []),
  ];
  return parts.length === 0 ? "" : ` (${parts.join(", ")})`;
}

/** One human line for an event: what happened, with its timing. */
export function describeEvent(event: RunEvent): string {
  switch (event.type) {
    case "run_started":
      return `run started: agent ${event.agent}, model ${event.model}, input "${clip(event.input, 60)}"${parentText(event.parent)}${
        event.metadata === undefined ? "" : `, metadata ${clip(JSON.stringify(event.metadata), 120)}`
      }${settingsText(event.modelSettings)}`;
    case "user_message":
      return `user: "${clip(event.text, 80)}"`;
    case "model_response": {
      const calls = event.toolCalls.map((call) => `${call.name}(${clip(call.arguments, 40)})`).join(", ");
      const what =
        event.stop === "tool_calls" ? `asks for ${calls}` : `[${event.stop}] "${clip(event.text, 70)}"`;
      return `model ${what}${turnFigures(event)}`;
    }
    case "output_rejected":
      return `model answer ${event.attempt} rejected by the output schema${event.retry ? ", asked again" : ", no try left"}: ${clip(event.problems, 80)}${turnFigures(event)}`;
    case "model_failed":
      return `model failed: ${event.error.name}: ${clip(event.error.message, 80)}${event.retryable ? " (retryable)" : ""}`;
    case "tool_started":
      return `tool ${event.name} started (${event.callId})`;
    case "tool_result": {
      const how = event.interrupted ? "answered as interrupted" : event.isError ? "failed" : "finished";
      const again = event.rerun ? " (run again after an interruption)" : "";
      return `tool ${event.name} ${how}${again}${took(event.ms)}: ${clip(event.content, 70)}`;
    }
    case "transferred":
      return `transferred from agent ${event.from} to ${event.to} (${event.callId})${event.reason ? `: ${clip(event.reason, 60)}` : ""}${event.model ? `, model ${event.model}` : ""}`;
    case "resumed":
      return event.input === undefined
        ? `resumed as generation ${event.generation}: ${event.kind}${event.model ? `, model ${event.model}` : ""}${settingsText(event.modelSettings)}${askedBy(event.actor, event.onBehalfOf)}`
        : `user (generation ${event.generation}): "${clip(event.input, 70)}"${askedBy(event.actor, event.onBehalfOf)}`;
    case "tool_decided":
      return `${event.approved ? "approved" : "rejected"} ${event.callId} by ${event.by}${forWhom(event.onBehalfOf)}${event.reason ? `: ${clip(event.reason, 60)}` : ""}`;
    case "cancelled":
      return `cancelled by ${event.by}${forWhom(event.onBehalfOf)}${event.reason ? `: ${clip(event.reason, 60)}` : ""}`;
    case "execution_stopped":
      return `${event.reason} (generation ${event.generation}): resume it by hand`;
    case "budget_exhausted":
      return `budget exhausted: ${event.limit} ${event.limits[event.limit]} reached (${usedText(event.used)})`;
    case "paused":
      return `paused: waiting for a decision on ${event.calls.map((call) => `${call.name} (${call.id})`).join(", ")}`;
    case "given_up":
      return `given up: automatic resumes stopped after ${event.resumes}; resume it by hand`;
    case "response_progress":
      return `model streaming: ${event.text.length} more characters saved: "${clip(event.text, 70)}"`;
    default:
      return assertNever(event);
  }
}

/** Whom the caller said it acted for (`--by`), beside who it was: ` for ana`. */
const forWhom = (onBehalfOf: string | undefined) => (onBehalfOf === undefined ? "" : ` for ${onBehalfOf}`);

/** Who asked for a generation, where the event says: ` (by local:root for ana)`. */
const askedBy = (actor: string | undefined, onBehalfOf: string | undefined) =>
  actor === undefined && onBehalfOf === undefined
    ? ""
    : ` (by ${actor ?? "an unnamed caller"}${forWhom(onBehalfOf)})`;

/** The line printed as an event happens: clock time, run, seq, description. */
export function progressLine(runId: string, event: RunEvent): string {
  const time = event.at.slice(11, 23);
  return `${time}  ${runId}  #${String(event.seq).padStart(3)}  ${describeEvent(event)}`;
}

/** Where a run came from: `, child of run p (call call_0_0)` (a sub-agent's), `, forked from run p at seq 3`. */
function parentText(parent: Extract<RunEvent, { type: "run_started" }>["parent"]): string {
  if (parent === undefined) return "";
  return isCallParent(parent)
    ? `, child of run ${parent.runId} (call ${parent.callId})`
    : `, forked from run ${parent.runId} at seq ${parent.seq}`;
}

/** A run's model settings as `show` prints them: `, settings temperature 0.2, maxOutputTokens 500`. */
function settingsText(settings: ModelSettings | undefined): string {
  const text = describeSettings(settings);
  return text === "" ? "" : `, settings ${clip(text, 160)}`;
}

/** A budget's figures in words: "12 turns, 4,210 tokens, $0.0123". */
function usedText(used: { turns: number; tokens: number; costUsd?: number | undefined }): string {
  const cost = used.costUsd === undefined ? "" : `, $${used.costUsd.toFixed(4)}`;
  return `${used.turns} turns, ${used.tokens} tokens${cost}`;
}
