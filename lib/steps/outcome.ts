import { classifyFacts } from "../core/classify.ts";
import { continuedText } from "../core/continuation.ts";
import type { RunEvent } from "../core/events.ts";
import type { LogFacts } from "../core/log.ts";
import { readLog } from "../core/logReader.ts";
import { finalOutput } from "../core/messages.ts";
import { type RunStatus, restingStatusOf } from "../core/status.ts";
import type { JsonValue } from "../core/structuredOutput.ts";

/*
 * What a run's log says it came to: the Finish task records it (lib/steps/finish.ts), and a read
 * of a run nobody executes answers it (lib/api/runReads.ts) without loading the steps that write.
 */

export interface RunOutcome {
  runId: string;
  status: RunStatus;
  output: JsonValue | null;
  /** With `invalid_output`: the last answer, which the agent's output schema rejected, and why. */
  invalidOutput?: InvalidOutput;
}

/** The final answer a run ended `invalid_output` with, kept: its text and what was wrong with it. */
export interface InvalidOutput {
  text: string;
  problems: string;
}

/** The status and final output a log (or its tail) shows when nobody is executing it, from its facts. */
export function outcomeOfFacts(runId: string, events: readonly RunEvent[], facts: LogFacts): RunOutcome {
  const status = restingStatusOf(facts, classifyFacts(facts));
  const last = facts.last;
  // The answer rejected: its text after that of the responses it continues, as the schema saw it.
  const invalid =
    status === "invalid_output" && last?.type === "output_rejected"
      ? { invalidOutput: { text: answerText(events, last), problems: last.problems } }
      : {};
  return { runId, status, output: finalOutput(events), ...invalid };
}

/** The text of an answer in `events` (a whole log or a tail), after that of the responses it continues. */
function answerText(events: readonly RunEvent[], answer: RunEvent & { text: string }): string {
  const index = events.findLastIndex((event) => event.seq === answer.seq);
  return (index < 0 ? "" : continuedText(events, index)) + answer.text;
}

/**
 * What generation `generation` came to, from the whole log, once later generations have followed
 * it: a message sent again with its key answers as the first send did, not with a later message's
 * answer. Undefined while it is the log's last generation, whose outcome is the run's.
 */
export function outcomeOfGeneration(
  runId: string,
  events: readonly RunEvent[],
  generation: number,
): RunOutcome | undefined {
  let next = events.findIndex((event) => event.type === "resumed" && event.generation > generation);
  if (next < 0) return undefined;
  // Decisions that opened the next generation came after this one rested (paused): not its own.
  while (next > 0 && events[next - 1]?.type === "tool_decided") next--;
  const then = events.slice(0, next);
  return outcomeOfFacts(runId, then, readLog(then));
}
