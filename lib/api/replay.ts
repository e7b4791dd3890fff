import { randomBytes } from "node:crypto";
import { BUILT_IN_AGENTS } from "../agents/builtIn.ts";
import { inPool } from "../core/concurrency.ts";
import { ConflictError, errorMessage, InvalidInputError, ModelRejectedError } from "../core/errors.ts";
import type { RunEvent, RunStarted } from "../core/events.ts";
import { inputsOf, type RunScript, scriptOf } from "../core/replay.ts";
import { Recording, recordedCallsOf, unansweredCallsOf } from "../core/replayCalls.ts";
import type { Difference } from "../core/replayDiff.ts";
import { localPrincipal } from "../runtime/local/localPrincipal.ts";
import { openLocalRuntime } from "../runtime/local/localRuntime.ts";
import type { LocalOptions } from "./local.ts";
import { checkReplayTools, type ReplayTools, recordedRun } from "./replayBatch.ts";
import { compareRuns, type ReplayFigures } from "./replayCompare.ts";
import { type MidTurnFork, midTurnForkOf } from "./replayFork.ts";
import { recordedAgents } from "./replayTools.ts";
import { Runlog } from "./runlog.ts";
import type { RunReads } from "./runReads.ts";
import * as check from "./validate.ts";

export type { CallKey, RunScript, RunScriptError, RunScriptTurn } from "../core/replay.ts";
export type { Difference, DifferenceKind, RunSummary } from "../core/replayDiff.ts";
export type { ReplayFigures } from "./replayCompare.ts";

/** A run's model turns as a scripted-model file: `--model scripted:FILE` with it plays the run again. */
export async function scriptFromRun(runlog: RunReads, runId: string): Promise<RunScript> {
  return scriptOf(await runlog.events(check.runId(runId)));
}

export { REPLAY_TOOLS, type ReplayTools } from "./replayBatch.ts";

/** Recorded runs to run again on a model, and how. */
export interface ReplayRequest extends Omit<LocalOptions, "background"> {
  /** The runs to replay: each must exist, or nothing is replayed. */
  runIds: readonly string[];
  /** The model spec every replay runs on (`openai:…`, `scripted:FILE`). */
  model: string;
  /** `recorded`: a call the recording has gets its recorded result, any other a tool error; `live` runs the tools. @default "recorded" */
  tools?: ReplayTools;
  /** Replays run at once. @default 4 */
  concurrency?: number;
  /** Told as each replay ends, with how many have ended. */
  onProgress?(run: ReplayedRun, done: number, total: number): void;
}

/** One run and its replay: the differences between them (none: unchanged). */
export interface ReplayedRun {
  /** The recorded run. */
  runId: string;
  /**
   * The new run the replay is: `<runId>.replay-<hex>`, its metadata `{ replayOf: runId }`; of a
   * run whose log holds a fork's input given mid-turn (a fork given its input mid-turn, or a fork
   * of one), a fork of it (its `run_started` names the run as its parent).
   */
  replayRunId: string;
  /** Whether anything differs (or the replay could not be run to its end). */
  changed: boolean;
  /** What differs, in order: status, answer, tool calls, turns. */
  differences: Difference[];
  /** Turns, tokens and cost of each, beside the differences (never counted as one). */
  figures: { recorded: ReplayFigures; replayed: ReplayFigures };
  /** Set when the replay could not be run to its end: why. */
  error?: string;
}

/** What a replay batch found: every run, in the order asked, and how many changed. */
export interface ReplayReport {
  /** Each run asked for, in the order asked. */
  runs: ReplayedRun[];
  /** How many of them changed. */
  changed: number;
}

const DEFAULT_CONCURRENCY = 4;

/**
 * Replay recorded runs on a model: each run's user inputs, in order, under a new run id with the
 * same agent (as the current code defines it), then compare the two; a fork given its input
 * mid-turn, or a fork of one, is replayed from that point (lib/api/replayFork.ts). Everything is
 * checked before anything is written (the runs, their agents, the model spec): bad input is an
 * InvalidInputError or NotFoundError, a run still running a ConflictError, and no replay starts.
 * The originals are only read, each once: its replay is compared with that read.
 */
export async function replayRuns(request: ReplayRequest): Promise<ReplayReport> {
  const given = check.object(request, "request");
  if (!Array.isArray(given.runIds) || given.runIds.length === 0)
    throw new InvalidInputError("runIds: expected at least one run id", { field: "runIds" });
  const runIds = [...new Set(given.runIds.map((id: unknown) => check.runId(id as string)))];
  check.text(given.model, "model");
  const tools = checkReplayTools(given.tools);
  check.optionalInteger(given.concurrency, "concurrency", 1);
  const { runIds: _, model, tools: __, concurrency, onProgress, ...local } = request;

  const recordings = new Map<string, { of: string; recording: Recording }>();
  const factories = local.agents ?? BUILT_IN_AGENTS;
  const runtime = await openLocalRuntime({
    ...local,
    agents: tools === "recorded" ? recordedAgents(factories, recordings) : factories,
  });
  try {
    const runlog = new Runlog(runtime.deps).as(localPrincipal());
    // Checked first, all of them: a bad spec or an unknown, running or unreplayable run or agent starts nothing.
    checkModel(() => runtime.deps.models(model));
    const originals: Recorded[] = [];
    for (const runId of runIds) {
      const { events, started } = await recordedRun(runlog, runId);
      runtime.deps.agents(started.agent);
      const fork = midTurnForkOf(events);
      originals.push({ runId, events, started, ...(fork === undefined ? {} : { fork }) });
    }
    const replayOne = async (recorded: Recorded): Promise<ReplayedRun> => {
      const { runId, events } = recorded;
      const replayRunId = replayIdOf(runId);
      if (tools === "recorded")
        recordings.set(replayRunId, {
          of: runId,
          recording: new Recording(recordedCallsOf(events), unansweredCallsOf(events)),
        });
      try {
        return await replay(runlog, { ...recorded, replayRunId, model }, local.prices);
      } finally {
        recordings.delete(replayRunId);
      }
    };
    const runs = await inPool(originals, concurrency ?? DEFAULT_CONCURRENCY, replayOne, onProgress);
    return { runs, changed: runs.filter((run) => run.changed).length };
  } finally {
    await runtime.close();
  }
}

/** A recorded run as read before anything is replayed: the one snapshot its replay is compared with. */
interface Recorded {
  runId: string;
  events: RunEvent[];
  started: RunStarted;
  /** Set when its log holds a fork's input given mid-turn: it is replayed from that point. */
  fork?: MidTurnFork;
}

/**
 * The model spec checked: one that names no provider or is not allowed keeps its own error; one
 * that cannot be built here (an `openai:` spec with no key) is bad input too, named by its field.
 */
function checkModel(build: () => unknown): void {
  try {
    build();
  } catch (error) {
    if (error instanceof InvalidInputError || !(error instanceof ModelRejectedError)) throw error;
    throw new InvalidInputError(`model: ${error.message}`, { field: "model", cause: error });
  }
}

/** `<runId>.replay-<8 hex>`, within the 128 characters a run id may have. */
function replayIdOf(runId: string): string {
  const suffix = `.replay-${randomBytes(4).toString("hex")}`;
  return `${runId.slice(0, 128 - suffix.length)}${suffix}`;
}

async function replay(
  runlog: Runlog,
  run: Recorded & { replayRunId: string; model: string },
  prices: LocalOptions["prices"],
): Promise<ReplayedRun> {
  const { runId, events, started, replayRunId, model, fork } = run;
  let error: string | undefined;
  try {
    if (fork === undefined) {
      const [first, ...more] = inputsOf(events);
      await runlog.start({
        agent: started.agent,
        input: first ?? started.input,
        model,
        runId: replayRunId,
        metadata: { replayOf: runId },
      });
      for (const input of more) await runlog.send(replayRunId, input);
    } else {
      // From where the fork went on: its copy, then its input where the fork put it (a fork of
      // it, whose metadata is the fork's own: a fork takes no metadata of its own).
      await runlog.fork({ runId, atSeq: fork.copied, input: fork.input, model, forkId: replayRunId });
      for (const input of fork.later) await runlog.send(replayRunId, input);
    }
  } catch (caught) {
    // A replay that takes no more input (it failed, or paused) has ended: its status says so.
    if (!(caught instanceof ConflictError)) error = errorMessage(caught);
  }
  const { differences, figures } = await compareRuns(runlog, runId, replayRunId, prices, {
    recorded: events,
  });
  return {
    runId,
    replayRunId,
    changed: differences.length > 0 || error !== undefined,
    differences,
    figures,
    ...(error === undefined ? {} : { error }),
  };
}
