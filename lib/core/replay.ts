import { canonicalValue } from "./canonicalJson.ts";
import type { Usage } from "./eventFields.ts";
import type { RunEvent } from "./events.ts";

/**
 * A recorded run as a regression test (docs/guides/replay.md): what its model said, turn by turn,
 * as a scripted-model file; the user inputs it was given; and its tool calls (how each ended, and
 * the recording a replay answers from: replayCalls.ts).
 * Pure: events in, values out.
 */

/** How a scripted turn fails (the scripted model's SCRIPTED_ERRORS). */
export type RunScriptError = "connection" | "rate_limit" | "rejected";

/** One turn of a script written from a run: the scripted model's file format (lib/adapters/scripted/script.ts). */
export interface RunScriptTurn {
  /** The answer's text. */
  text?: string;
  /** The calls it made: arguments an object when the recorded text is its JSON, else that text. */
  toolCalls?: { name: string; arguments: Record<string, unknown> | string }[];
  /** How the response ended, as recorded. */
  stop?: string;
  /** The failure a recorded failed model call is played as. */
  error?: RunScriptError;
  /** The tokens it reported. */
  usage?: Usage;
}

/** A run's model turns, in order: `--model scripted:FILE` with this file plays the run again. */
export interface RunScript {
  /** One per model turn of the run, in order. */
  turns: RunScriptTurn[];
}

/**
 * The run's model turns as a script, one per turn the scripted model is asked for: every response,
 * rejected answer and recorded model failure, in log order (what `modelTurns` counts, lib/core/log.ts),
 * so turn N of the script answers turn N of the run again, across sends and resumes.
 */
export function scriptOf(events: readonly RunEvent[]): RunScript {
  const turns: RunScriptTurn[] = [];
  for (const event of events) {
    switch (event.type) {
      case "model_response": {
        const turn: RunScriptTurn = { text: event.text, stop: event.stop };
        if (event.toolCalls.length > 0)
          turn.toolCalls = event.toolCalls.map((call) => ({
            name: call.name,
            arguments: scriptedArguments(call.arguments),
          }));
        if (event.usage) turn.usage = { ...event.usage };
        turns.push(turn);
        break;
      }
      case "output_rejected":
        turns.push({ text: event.text, stop: "stop", ...(event.usage ? { usage: { ...event.usage } } : {}) });
        break;
      case "model_failed":
        turns.push({ error: scriptedError(event.error, event.retryable) });
        break;
      default:
        break;
    }
  }
  return { turns };
}

/**
 * Arguments as a script gives them: an object when the recorded text is exactly what the scripted
 * model sends for it (JSON.stringify of the object), else the text itself, sent verbatim, so the
 * replayed call carries the same bytes either way.
 */
function scriptedArguments(text: string): Record<string, unknown> | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Invalid JSON is sent as it is: the model sent it so.
    return text;
  }
  const plain = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed);
  return plain && JSON.stringify(parsed) === text ? (parsed as Record<string, unknown>) : text;
}

/** The scripted failure that ends a turn the way the recorded one did (the scripted model's own messages). */
function scriptedError(error: { name: string; message: string }, retryable: boolean): RunScriptError {
  if (!retryable || error.name === "ModelRejectedError") return "rejected";
  return /\b429\b|rate limit/i.test(error.message) ? "rate_limit" : "connection";
}

/** The user's inputs in order: the first message, then each one sent to the run later. */
export function inputsOf(events: readonly RunEvent[]): string[] {
  const inputs: string[] = [];
  for (const event of events) {
    if (event.type === "run_started") inputs.push(event.input);
    else if (event.type === "user_message") inputs.push(event.text);
    else if (event.type === "resumed" && event.input !== undefined) inputs.push(event.input);
  }
  return inputs;
}

/** A tool call as replay compares it: the tool and its arguments (canonical JSON when they parse). */
export interface CallKey {
  name: string;
  arguments: string;
}

/** A call's arguments as compared: the JSON with its keys sorted, or the text when it is not JSON. */
export function canonicalArguments(text: string): string {
  try {
    return canonicalValue(JSON.parse(text));
  } catch {
    return text;
  }
}

/** Every tool call the model made, in order, as {@link CallKey}s. */
export function toolCallsOf(events: readonly RunEvent[]): CallKey[] {
  const calls: CallKey[] = [];
  for (const event of events) {
    if (event.type !== "model_response" || event.stop !== "tool_calls") continue;
    for (const call of event.toolCalls)
      calls.push({ name: call.name, arguments: canonicalArguments(call.arguments) });
  }
  return calls;
}
