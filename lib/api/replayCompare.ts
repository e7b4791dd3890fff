import { figuresOf, type PriceTable } from "../core/budget.ts";
import { canonicalValue } from "../core/canonicalJson.ts";
import { NotFoundError } from "../core/errors.ts";
import type { RunEvent } from "../core/events.ts";
import { readLog } from "../core/logReader.ts";
import { comparedCallsOf } from "../core/replayCalls.ts";
import { type Difference, differencesOf, type RunSummary } from "../core/replayDiff.ts";
import { outcomeOfFacts } from "../steps/outcome.ts";
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
 * Compares a recorded run with its replay, both read through `reads` (so held to its scope): a run
 * that does not exist is a NotFoundError naming it. Shared by the library's replay, the HTTP
 * replay report and the viewer's compare page: one comparison, one wording. A caller that has read
 * a side's log already gives it in `logs` (an empty one: a replay not started yet, `not_started`),
 * and that side is what that log shows; a side read here is `running` while a live executor
 * holds it, else what its log shows.
 */
export async function compareRuns(
  reads: RunReads,
  runId: string,
  replayRunId: string,
  prices?: PriceTable,
  logs: { recorded?: readonly RunEvent[]; replayed?: readonly RunEvent[] } = {},
): Promise<RunComparison> {
  const [recorded, replayed] = await Promise.all([
    sideOf(reads, runId, logs.recorded, prices),
    sideOf(reads, replayRunId, logs.replayed, prices),
  ]);
  return {
    differences: differencesOf(recorded, replayed),
    figures: { recorded: figuresOfSummary(recorded), replayed: figuresOfSummary(replayed) },
    summaries: { recorded, replayed },
  };
}

async function sideOf(
  reads: RunReads,
  runId: string,
  given: readonly RunEvent[] | undefined,
  prices: PriceTable | undefined,
): Promise<RunSummary> {
  if (given !== undefined) return summaryOf(runId, given, prices);
  // Whether it runs before its log: a run that ends between the two reads shows how it ended.
  const { status } = await reads.outcome<unknown>(runId);
  return summaryOf(runId, await reads.events(runId), prices, status === "running");
}

/**
 * One run as the comparison sees it, all from one read of its log (status, answer, tool calls,
 * turns, tokens, cost), so the status and answer are those of the log whose turns are counted:
 * `running` when its reader saw a live executor hold it, `not_started` for an empty log.
 */
export function summaryOf(
  runId: string,
  events: readonly RunEvent[],
  prices?: PriceTable,
  running = false,
): RunSummary {
  const facts = readLog(events);
  const rests = events.length === 0 ? undefined : outcomeOfFacts(runId, events, facts);
  const output = rests?.output ?? null;
  const figures = figuresOf(facts.used, prices);
  return {
    status: rests === undefined ? "not_started" : running ? "running" : rests.status,
    answer: output === null ? null : typeof output === "string" ? output : canonicalValue(output),
    toolCalls: comparedCallsOf(events),
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
