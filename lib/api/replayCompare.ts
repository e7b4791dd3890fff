import { figuresOf, type PriceTable } from "../core/budget.ts";
import { canonicalValue } from "../core/canonicalJson.ts";
import { NotFoundError } from "../core/errors.ts";
import type { RunEvent } from "../core/events.ts";
import { readLog } from "../core/logReader.ts";
import { toolCallsOf } from "../core/replay.ts";
import { type Difference, differencesOf, type RunSummary } from "../core/replayDiff.ts";
import type { RunReads } from "./runReads.ts";

/** Turns, tokens and (with prices) cost of a run. */
export interface ReplayFigures {
  /** Model turns: responses and rejected answers. */
  turns: number;
  /** Input and output tokens, as the model reported them. */
  tokens: number;
  /** US dollars, when the price table prices the run's models. */
  costUsd?: number;
}

/** A recorded run against its replay: what changed, and each side's figures. */
export interface RunComparison {
  /** What differs, in order: status, answer, tool calls, turns. */
  differences: Difference[];
  /** Turns, tokens and cost of each side. */
  figures: { recorded: ReplayFigures; replayed: ReplayFigures };
  /** Each side as it was compared (status, answer, tool calls, figures): what a side-by-side view shows. */
  summaries: { recorded: RunSummary; replayed: RunSummary };
}

/**
 * Compares a recorded run with its replay, both read through `reads` (so held to its scope). A
 * replay that never started (no events) is summed up as `not_started`. Shared by the library's
 * replay, the HTTP replay report and the viewer's compare page: one comparison, one wording. A
 * caller that has read a side's log already gives it in `logs`, and it is not read again.
 */
export async function compareRuns(
  reads: RunReads,
  runId: string,
  replayRunId: string,
  prices?: PriceTable,
  logs: { recorded?: readonly RunEvent[]; replayed?: readonly RunEvent[] } = {},
): Promise<RunComparison> {
  const [recordedLog, replayedLog] = await Promise.all([
    logs.recorded ?? reads.events(runId),
    logs.replayed ?? reads.events(replayRunId).catch(unlessMissing([])),
  ]);
  const [recorded, replayed] = await Promise.all([
    summaryOf(reads, runId, recordedLog, prices),
    summaryOf(reads, replayRunId, replayedLog, prices),
  ]);
  return {
    differences: differencesOf(recorded, replayed),
    figures: { recorded: figuresOfSummary(recorded), replayed: figuresOfSummary(replayed) },
    summaries: { recorded, replayed },
  };
}

/** One run as the comparison sees it: status, answer, tool calls, turns, tokens, cost. */
export async function summaryOf(
  reads: RunReads,
  runId: string,
  events: readonly RunEvent[],
  prices?: PriceTable,
): Promise<RunSummary> {
  const outcome = await reads.outcome<unknown>(runId).catch(unlessMissing(undefined));
  const output = outcome?.output ?? null;
  const figures = figuresOf(readLog(events).used, prices);
  return {
    status: outcome?.status ?? "not_started",
    answer: output === null ? null : typeof output === "string" ? output : canonicalValue(output),
    toolCalls: toolCallsOf(events),
    turns: figures.turns,
    tokens: figures.tokens,
    ...(figures.costUsd === undefined ? {} : { costUsd: figures.costUsd }),
  };
}

const figuresOfSummary = ({ turns, tokens, costUsd }: RunSummary): ReplayFigures => ({
  turns,
  tokens,
  ...(costUsd === undefined ? {} : { costUsd }),
});

/** A run that is not there reads as `value`; any other error is thrown again. */
export const unlessMissing =
  <T>(value: T) =>
  (error: unknown): T => {
    if (error instanceof NotFoundError) return value;
    throw error;
  };
