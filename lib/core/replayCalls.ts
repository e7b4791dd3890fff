import type * as z from "zod";
import { canonicalValue } from "./canonicalJson.ts";
import type { RunEvent } from "./events.ts";
import { type CallKey, canonicalArguments } from "./replay.ts";

/**
 * The tool calls of a recorded run as replay reads them (docs/guides/replay.md): what each asked
 * for, how it ended, and the recorded results a replay answers its calls from. Pure: events in,
 * values out.
 */

/** A call of the recording with the result it got. */
export interface RecordedCall extends CallKey {
  /** The arguments exactly as the model sent them. */
  raw: string;
  content: string;
  isError: boolean;
}

/**
 * How a call of a log ended: with a result, with an error, or with none: still waiting for a
 * decision (`waiting`), started and never finished (`unfinished`: its run was cut off, or went on
 * without it), or never run (`not_run`).
 */
export type CallOutcome = "result" | "error" | "waiting" | "unfinished" | "not_run";

/** A call of a log as replay compares it: the tool, its arguments and how it ended. */
export interface ComparedCall extends CallKey {
  outcome: CallOutcome;
  /** The error's text, when the outcome is `error`. */
  error?: string;
}

/** A call of the recording that has no result: why (its {@link CallOutcome}). */
export interface UnansweredCall extends CallKey {
  /** The arguments exactly as the model sent them. */
  raw: string;
  outcome: Exclude<CallOutcome, "result" | "error">;
}

/** The arguments a tool reads a recorded call with, as {@link recordedKeyOf} reads them. */
type RecordedArguments = Pick<RecordedCall, "raw" | "arguments">;

/**
 * A recorded call's arguments as a tool with `parameters` reads them (its schema's defaults and
 * transforms), as canonical JSON: a replayed call matches a recorded one whenever the tool would
 * see the same arguments. Arguments the schema refuses, or that are not JSON, are their own text.
 */
export function recordedKeyOf(parameters: z.ZodType): (call: RecordedArguments) => string {
  return (call) => {
    try {
      const parsed = parameters.safeParse(JSON.parse(call.raw));
      return parsed.success ? canonicalValue(parsed.data) : call.arguments;
    } catch {
      return call.arguments;
    }
  };
}

interface LoggedCall {
  name: string;
  raw: string;
  outcome: CallOutcome;
  result?: { content: string; isError: boolean };
}

/**
 * Every call the model made, in order, with how it ended: a result or transfer answers the latest
 * call of its id before it; a call with none is waiting when its response asked a person and no
 * decision came, unfinished when it started.
 */
function loggedCalls(events: readonly RunEvent[]): LoggedCall[] {
  const calls: LoggedCall[] = [];
  const byId = new Map<string, LoggedCall>();
  const unanswered = (id: string) => {
    const call = byId.get(id);
    return call !== undefined && call.result === undefined && call.outcome !== "result" ? call : undefined;
  };
  for (const event of events) {
    switch (event.type) {
      case "model_response":
        if (event.stop !== "tool_calls") break;
        for (const { id, name, arguments: raw } of event.toolCalls) {
          const call: LoggedCall = {
            name,
            raw,
            outcome: event.approvals?.includes(id) ? "waiting" : "not_run",
          };
          calls.push(call);
          byId.set(id, call);
        }
        break;
      case "tool_decided": {
        const call = unanswered(event.callId);
        if (call?.outcome === "waiting") call.outcome = "not_run";
        break;
      }
      case "tool_started": {
        const call = unanswered(event.callId);
        if (call) call.outcome = "unfinished";
        break;
      }
      case "tool_result": {
        const call = unanswered(event.callId);
        if (call) {
          call.outcome = event.isError ? "error" : "result";
          call.result = { content: event.content, isError: event.isError };
        }
        break;
      }
      case "transferred": {
        const call = unanswered(event.callId);
        if (call) call.outcome = "result";
        break;
      }
      default:
        break;
    }
  }
  return calls;
}

/** Every call that got a result, in the order the model made them, with that result. */
export function recordedCallsOf(events: readonly RunEvent[]): RecordedCall[] {
  return loggedCalls(events).flatMap(({ name, raw, result }) =>
    result === undefined ? [] : [{ name, arguments: canonicalArguments(raw), raw, ...result }],
  );
}

/** Every call that got no result, in the order the model made them, with why. */
export function unansweredCallsOf(events: readonly RunEvent[]): UnansweredCall[] {
  return loggedCalls(events).flatMap(({ name, raw, outcome }) =>
    outcome === "result" || outcome === "error"
      ? []
      : [{ name, arguments: canonicalArguments(raw), raw, outcome }],
  );
}

/** Every tool call the model made, in order, with how it ended (an error with its text). */
export function comparedCallsOf(events: readonly RunEvent[]): ComparedCall[] {
  return loggedCalls(events).map(({ name, raw, outcome, result }) => ({
    name,
    arguments: canonicalArguments(raw),
    outcome,
    ...(outcome === "error" && result ? { error: result.content } : {}),
  }));
}

const WHY_NO_RESULT: Record<UnansweredCall["outcome"], string> = {
  waiting: "it was waiting for a person's decision when the recording ended, and a replay asks nobody",
  unfinished: "it was started and never finished (its run was cut off, or went on without it)",
  not_run: "it never ran",
};

/**
 * Why the recording of run `of` cannot answer a replayed call of `name` with arguments `key`: it
 * has no such call left, or (`unanswered`) it has the call with no result. The tool error's text,
 * in both replay paths.
 */
export function missingAnswer(of: string, name: string, key: string, unanswered?: UnansweredCall): string {
  if (unanswered === undefined)
    return `the recording of run ${of} has no call of ${name} with these arguments (${key}) left to answer it`;
  return `the recording of run ${of} has this call of ${name} (${key}) but no result to answer it with: ${WHY_NO_RESULT[unanswered.outcome]}`;
}

/**
 * The recorded results, each given out once, in the order recorded: a call takes the first unused
 * result of a call with its name and arguments, or undefined when the recording has none left.
 */
export class Recording {
  private readonly left: RecordedCall[];

  constructor(
    calls: readonly RecordedCall[],
    /** The recording's calls that have no result, to say why one cannot answer. */
    private readonly unanswered: readonly UnansweredCall[] = [],
  ) {
    this.left = [...calls];
  }

  /**
   * The first unused call of tool `name` whose arguments, put through `keyOf` (the tool's own
   * reading of them), give `key`; undefined when the recording has none left.
   */
  take(name: string, key: string, keyOf: (call: RecordedArguments) => string): RecordedCall | undefined {
    const at = this.left.findIndex((call) => call.name === name && keyOf(call) === key);
    if (at < 0) return undefined;
    return this.left.splice(at, 1)[0];
  }

  /** The recording's first call of `name` with `key` that has no result, if any: why `take` found none. */
  withoutResult(
    name: string,
    key: string,
    keyOf: (call: RecordedArguments) => string,
  ): UnansweredCall | undefined {
    return this.unanswered.find((call) => call.name === name && keyOf(call) === key);
  }
}
