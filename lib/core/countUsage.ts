import type { ModelResponse, OutputRejected } from "./events.ts";
import type { LogFacts } from "./log.ts";

/*
 * Counting what a run used as its log is read (LogFacts.used, lib/core/logReader.ts): each model
 * turn, and its tokens in all and by the model that answered it.
 */

/** Count a response's turn and tokens (a rejected answer's too), under the model that answered it. */
export function countUsage(
  used: LogFacts["used"],
  byModel: Map<string, { inputTokens: number; outputTokens: number }>,
  event: ModelResponse | OutputRejected,
  model: string | undefined,
): void {
  used.turns++;
  if (!event.usage) return;
  used.inputTokens += event.usage.inputTokens;
  used.outputTokens += event.usage.outputTokens;
  const spec = event.model ?? model ?? "";
  const tokens = byModel.get(spec) ?? { inputTokens: 0, outputTokens: 0 };
  tokens.inputTokens += event.usage.inputTokens;
  tokens.outputTokens += event.usage.outputTokens;
  byModel.set(spec, tokens);
}
