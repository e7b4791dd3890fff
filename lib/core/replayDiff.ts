import type { CallKey } from "./replay.ts";
import type { CallOutcome, ComparedCall } from "./replayCalls.ts";

/** What a run came to, as replay compares it (lib/api/replay.ts reads it from the log and the outcome). */
export interface RunSummary {
  status: string;
  /** The final answer: its text, or the JSON of its structured output; null when there is none. */
  answer: string | null;
  /** Its tool calls in order, each with how it ended. */
  toolCalls: ComparedCall[];
  /** Model turns: responses and rejected answers. */
  turns: number;
  tokens: number;
  /** US dollars, when a price table prices the run's models. */
  costUsd?: number;
}

/** What kind of thing changed between a run and its replay. */
export type DifferenceKind =
  | "status"
  | "answer"
  | "turns"
  | "tool_call_added"
  | "tool_call_removed"
  | "tool_call_arguments"
  | "tool_call_outcome";

/** One change: what it is, the recorded value and the replayed one (null where there is none). */
export interface Difference {
  /** What changed. */
  what: DifferenceKind;
  /**
   * The original run's value: a status, an answer, a `{ name, arguments }` call (with its `outcome`,
   * and `error`, for `tool_call_outcome`), a count; null for an added call.
   */
  recorded: unknown;
  /** The replay's value, of the same kind; null for a removed call. */
  replayed: unknown;
}

/**
 * How the replay differs from the run it replays: status, answer, the tool calls (aligned by a
 * longest common subsequence of name and arguments, so one call more or less is named as added or
 * removed, a call of the same tool with other arguments as changed, and a call made alike that
 * ended otherwise as its outcome changed), and the number of turns.
 * Tokens and cost are figures, not differences: a new model never uses the same tokens.
 */
export function differencesOf(recorded: RunSummary, replayed: RunSummary): Difference[] {
  const differences: Difference[] = [];
  if (recorded.status !== replayed.status)
    differences.push({ what: "status", recorded: recorded.status, replayed: replayed.status });
  if (recorded.answer !== replayed.answer)
    differences.push({ what: "answer", recorded: recorded.answer, replayed: replayed.answer });
  differences.push(...callDifferences(recorded.toolCalls, replayed.toolCalls));
  if (recorded.turns !== replayed.turns)
    differences.push({ what: "turns", recorded: recorded.turns, replayed: replayed.turns });
  return differences;
}

/** A call as compared: with how it ended where that is known (a bare CallKey compares by name and arguments only). */
type Compared = CallKey & { outcome?: CallOutcome; error?: string };

const same = (a: CallKey, b: CallKey) => a.name === b.name && a.arguments === b.arguments;
const shown = (call: CallKey) => ({ name: call.name, arguments: call.arguments });
const shownEnded = (call: Compared) => ({
  ...shown(call),
  outcome: call.outcome,
  ...(call.error === undefined ? {} : { error: call.error }),
});

/**
 * Whether a call made alike ended otherwise: a result against an error or none, or another error's
 * text. A result's text is not compared (a live tool's answer may differ in its details each run).
 */
const endedOtherwise = (a: Compared, b: Compared) =>
  a.outcome !== undefined && b.outcome !== undefined && (a.outcome !== b.outcome || a.error !== b.error);

/** The edits that turn the recorded calls into the replayed ones, in call order. */
export function callDifferences(recorded: readonly Compared[], replayed: readonly Compared[]): Difference[] {
  // lengths[i][j]: the longest common subsequence of recorded[i..] and replayed[j..].
  const rows = recorded.length;
  const cols = replayed.length;
  const lengths = Array.from({ length: rows + 1 }, () => new Array<number>(cols + 1).fill(0));
  for (let i = rows - 1; i >= 0; i--)
    for (let j = cols - 1; j >= 0; j--)
      lengths[i]![j] = same(recorded[i]!, replayed[j]!)
        ? lengths[i + 1]![j + 1]! + 1
        : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
  const differences: Difference[] = [];
  let removed: Compared[] = [];
  let added: Compared[] = [];
  const flush = () => {
    // Within a gap between matched calls, a removed and an added call of one tool are one call changed.
    for (const gone of removed) {
      const at = added.findIndex((call) => call.name === gone.name);
      if (at >= 0) {
        const [other] = added.splice(at, 1);
        differences.push({ what: "tool_call_arguments", recorded: shown(gone), replayed: shown(other!) });
      } else differences.push({ what: "tool_call_removed", recorded: shown(gone), replayed: null });
    }
    for (const call of added)
      differences.push({ what: "tool_call_added", recorded: null, replayed: shown(call) });
    removed = [];
    added = [];
  };
  let i = 0;
  let j = 0;
  while (i < rows || j < cols) {
    if (i < rows && j < cols && same(recorded[i]!, replayed[j]!)) {
      flush();
      if (endedOtherwise(recorded[i]!, replayed[j]!))
        differences.push({
          what: "tool_call_outcome",
          recorded: shownEnded(recorded[i]!),
          replayed: shownEnded(replayed[j]!),
        });
      i++;
      j++;
    } else if (j >= cols || (i < rows && lengths[i + 1]![j]! >= lengths[i]![j + 1]!)) {
      removed.push(recorded[i++]!);
    } else {
      added.push(replayed[j++]!);
    }
  }
  flush();
  return differences;
}

const ENDED: Record<Exclude<CallOutcome, "error">, string> = {
  result: "a result",
  waiting: "no result (waiting for a decision)",
  unfinished: "no result (started, never finished)",
  not_run: "no result (never run)",
};

/** How a call ended, in words: an error with its text. */
const ended = (v: unknown) => {
  const { outcome, error } = v as Compared;
  return outcome === "error" ? `error ${JSON.stringify(error ?? "")}` : ENDED[outcome ?? "result"];
};

/** A difference in one line, for a person (and a JUnit failure message). */
export function describeDifference(difference: Difference): string {
  const value = (v: unknown) => (typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v ?? null));
  const call = (v: unknown) => {
    const c = v as CallKey;
    return `${c.name}(${c.arguments})`;
  };
  switch (difference.what) {
    case "status":
      return `status: ${difference.recorded} -> ${difference.replayed}`;
    case "answer":
      return `answer: ${value(difference.recorded)} -> ${value(difference.replayed)}`;
    case "turns":
      return `turns: ${difference.recorded} -> ${difference.replayed}`;
    case "tool_call_added":
      return `tool call added: ${call(difference.replayed)}`;
    case "tool_call_removed":
      return `tool call removed: ${call(difference.recorded)}`;
    case "tool_call_arguments":
      return `tool call arguments changed: ${call(difference.recorded)} -> ${call(difference.replayed)}`;
    case "tool_call_outcome":
      return `tool call ended otherwise: ${call(difference.recorded)}: ${ended(difference.recorded)} -> ${ended(difference.replayed)}`;
    default: {
      const unknown: never = difference.what;
      throw new Error(`unhandled difference ${String(unknown)}`);
    }
  }
}
