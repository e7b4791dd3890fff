import { randomBytes } from "node:crypto";
import type { PriceTable } from "../core/budget.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../core/errors.ts";
import type { RunEvent, RunStarted } from "../core/events.ts";
import type { Metadata } from "../core/metadata.ts";
import { inputsOf } from "../core/replay.ts";
import type { Difference } from "../core/replayDiff.ts";
import { keyedBatchId } from "./keyedIds.ts";
import { compareRuns, type ReplayFigures, unlessMissing } from "./replayCompare.ts";
import { midTurnForkOf } from "./replayFork.ts";
import type { RunReads } from "./runReads.ts";
import type { ControlOptions, StartRequest } from "./types.ts";
import * as check from "./validateOptions.ts";

/**
 * A replay batch started through the normal start path (so on AWS each replay is a Step Functions
 * execution), and its report read back from the store alone: replay i of batch `replays-<hex>` is
 * run `replays-<hex>.<i>`; each carries `replayOf`, `replayTools` and `replayBatch` in its
 * metadata, and replay 0 also `replayRuns`, the batch's recorded runs in order. No table of
 * batches: the runs are the batch.
 */

/** How replay answers tool calls: from the recording (nothing runs again), or by running the tools. */
export const REPLAY_TOOLS = ["recorded", "live"] as const;
/** One of {@link REPLAY_TOOLS}. */
export type ReplayTools = (typeof REPLAY_TOOLS)[number];

/** `tools` as a replay request gives it: one of REPLAY_TOOLS, "recorded" when absent. */
export function checkReplayTools(value: unknown): ReplayTools {
  const tools = value ?? "recorded";
  if (!(REPLAY_TOOLS as readonly unknown[]).includes(tools))
    throw new InvalidInputError(`tools: expected "recorded" or "live", got ${JSON.stringify(tools)}`, {
      field: "tools",
    });
  return tools as ReplayTools;
}

/**
 * A recorded run's log, read through the caller's scope (another owner's run is a NotFoundError),
 * with the start a replay begins from; InvalidInputError when the log has none. A run a live
 * executor holds is a ConflictError: its log is not its story yet, and a replay compared with it
 * would compare with half of it.
 */
export async function recordedRun(
  runlog: RunReads,
  runId: string,
): Promise<{ events: RunEvent[]; started: RunStarted }> {
  // Whether it runs before its log: a run that ends between the two reads is replayed whole.
  if ((await runlog.outcome(runId)).status === "running")
    throw new ConflictError(`run ${runId} is still running: replay it once it has ended`, { runId });
  const events = await runlog.events(runId);
  const started = events[0];
  if (started?.type !== "run_started")
    throw new InvalidInputError(`run ${runId} has no start to replay`, { field: "runIds", runId });
  return { events, started };
}

/** The most runs one batch replays. */
export const MAX_REPLAY_BATCH = 10;

/** Recorded runs to replay as a batch, each as its own run executing on its own. */
export interface ReplayBatchRequest {
  /** The recorded runs, 1 to 10, each one the caller may see. */
  runIds: readonly string[];
  /** The model spec every replay runs on. */
  model: string;
  /** `recorded`: tool calls are answered from each run's recording; `live` runs them. @default "recorded" */
  tools?: ReplayTools;
  /** Names the batch: the same key with the same request is the same batch, started once. @default a new batch */
  idempotencyKey?: string;
}

/** A batch as started: its id and its runs. */
export interface ReplayBatchStarted {
  /** `replays-<16 hex>`. */
  batchId: string;
  /** Each recorded run and the replay run of it, in the order asked. */
  runs: { runId: string; replayRunId: string }[];
  /** False when the idempotency key named a batch that was already started: nothing new started. */
  created: boolean;
}

/** One run of a batch report. */
export interface ReplayBatchRun {
  runId: string;
  replayRunId: string;
  /** `done` once the replay has ended and was given every recorded input. */
  status: "running" | "done";
  /** Whether anything differs so far (final once `done`). */
  changed: boolean;
  /** What differs, as compareRuns words it (lib/api/replayCompare.ts). */
  differences: Difference[];
  figures: { recorded: ReplayFigures; replayed: ReplayFigures };
}

/** What a batch found so far. */
export interface ReplayBatchReport {
  batchId: string;
  runs: ReplayBatchRun[];
  /** How many runs changed. */
  changed: number;
  /** Whether every replay is done. */
  done: boolean;
}

/** What a batch needs of the runtime beyond the Runlog: checks of a start that write nothing. */
export interface StartChecks {
  /** Throws (UnknownModelError …) when the model spec cannot be resolved. */
  model(spec: string): void;
  /** Throws NotFoundError when no agent of this name is registered. */
  agent(name: string): void;
}

/** What a batch does with runs: reads, and the start and send of Runlog (runlog.ts, which calls in here). */
export interface BatchRunlog extends RunReads {
  start(request: StartRequest): Promise<{ created: boolean }>;
  send(runId: string, message: string, options?: ControlOptions): Promise<unknown>;
}

/** A batch id: `replays-` and 16 hex digits. */
export const BATCH_ID = /^replays-[0-9a-f]{16}$/;

/** Replay i of a batch. */
export const replayRunIdOf = (batchId: string, index: number): string => `${batchId}.${index}`;

/**
 * Start a batch: every run is read (through the caller's scope: another owner's is a
 * NotFoundError) and every agent and the model are checked before the first replay starts.
 */
export async function startReplayBatch(
  runlog: BatchRunlog,
  checks: StartChecks,
  request: ReplayBatchRequest,
): Promise<ReplayBatchStarted> {
  const given = check.object(request, "request");
  const runIds = batchRunIds(given.runIds);
  const model = check.text(given.model, "model");
  const tools = checkReplayTools(given.tools);
  const key = check.optionalIdempotencyKey(given.idempotencyKey, "idempotencyKey");
  const originals: { runId: string; agent: string; input: string }[] = [];
  for (const runId of runIds) {
    const { events, started } = await recordedRun(runlog, runId);
    // The same rule as replayRuns's: a run whose log holds a fork's input given mid-turn (its
    // own, or one copied from the run it forks) cannot be replayed from its first input.
    const fork = midTurnForkOf(events);
    if (fork !== undefined)
      throw new InvalidInputError(
        `runIds: run ${runId} holds an input a fork was given mid-turn (at seq ${fork.copied + 1}): a batch replays a run from its first input, which would not reproduce it; replay it with runlog replay (replayRuns), which replays it from that point`,
        { field: "runIds", runId, seq: fork.copied + 1 },
      );
    originals.push({ runId, agent: started.agent, input: inputsOf(events)[0] ?? started.input });
  }
  checks.model(model);
  for (const { runId, agent } of originals) {
    try {
      checks.agent(agent);
    } catch (error) {
      // The run exists; what is missing is its agent here: the request's runIds cannot be replayed.
      if (!(error instanceof NotFoundError)) throw error;
      throw new InvalidInputError(`runIds: run ${runId}'s agent ${agent} is not registered here`, {
        field: "runIds",
        runId,
        cause: error,
      });
    }
  }
  const batchId = key === undefined ? `replays-${randomBytes(8).toString("hex")}` : keyedBatchId(key);
  let created = false;
  const runs: ReplayBatchStarted["runs"] = [];
  // Replay 0 first: its metadata is the whole request, so a key reused with another request is
  // refused (ConflictError) before anything starts; a retry of a half-started batch completes it.
  for (const [index, { runId, agent, input }] of originals.entries()) {
    const replayRunId = replayRunIdOf(batchId, index);
    const metadata: Metadata = {
      replayOf: runId,
      replayTools: tools,
      replayBatch: batchId,
      ...(index === 0 ? { replayRuns: [...runIds] } : {}),
    };
    const started = await runlog.start({ agent, input, model, runId: replayRunId, metadata });
    created ||= started.created;
    runs.push({ runId, replayRunId });
  }
  return { batchId, runs, created };
}

function batchRunIds(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_REPLAY_BATCH)
    throw new InvalidInputError(`runIds: expected 1 to ${MAX_REPLAY_BATCH} run ids`, { field: "runIds" });
  const runIds = value.map((id, i) => check.runId(id, `runIds.${i}`));
  const twice = runIds.find((id, i) => runIds.indexOf(id) !== i);
  if (twice !== undefined)
    throw new InvalidInputError(`runIds: run ${twice} is listed twice`, { field: "runIds" });
  return runIds;
}

/**
 * The batch's report, computed on read. A replay of a run with more than one user message is
 * given its next recorded message here, when its previous turn has completed (under an
 * idempotency key per message, so two reads at once send it once): a batch moves on as it is read.
 */
export async function replayBatchReport(
  runlog: BatchRunlog,
  batchId: string,
  prices?: PriceTable,
): Promise<ReplayBatchReport> {
  if (typeof batchId !== "string" || !BATCH_ID.test(batchId))
    throw new InvalidInputError(`batchId: expected replays-<16 hex digits>, got ${JSON.stringify(batchId)}`, {
      field: "batchId",
    });
  const notFound = () => new NotFoundError(`replay batch ${batchId} not found`);
  const first = await runlog.events(replayRunIdOf(batchId, 0)).catch(unlessMissing(undefined));
  const started = first?.[0];
  const listed = started?.type === "run_started" ? started.metadata?.replayRuns : undefined;
  if (!Array.isArray(listed) || !listed.every((id) => typeof id === "string")) throw notFound();
  const runs: ReplayBatchRun[] = [];
  for (const [index, runId] of (listed as string[]).entries()) {
    const replayRunId = replayRunIdOf(batchId, index);
    const { done, logs } = await moveOn(runlog, runId, replayRunId);
    const { differences, figures } = await compareRuns(runlog, runId, replayRunId, prices, logs);
    runs.push({
      runId,
      replayRunId,
      status: done ? "done" : "running",
      changed: differences.length > 0,
      differences,
      figures,
    });
  }
  return {
    batchId,
    runs,
    changed: runs.filter((run) => run.changed).length,
    done: runs.every((run) => run.status === "done"),
  };
}

/**
 * Whether the replay is done; a replay that completed a turn with recorded inputs left is sent the
 * next. With the logs it read, for the comparison (the replay's only while nothing was sent to it).
 */
async function moveOn(
  runlog: BatchRunlog,
  runId: string,
  replayRunId: string,
): Promise<{ done: boolean; logs: { recorded?: RunEvent[]; replayed?: RunEvent[] } }> {
  const outcome = await runlog.outcome(replayRunId).catch(unlessMissing(undefined));
  // Not started (a batch start cut short): a retry of the start with its key starts it. A replay
  // waiting for its sub-agents' runs (live tools) goes on by itself once they end.
  if (outcome === undefined) return { done: false, logs: { replayed: [] } };
  if (outcome.status === "running" || outcome.status === "waiting") return { done: false, logs: {} };
  const [recorded, replayed] = await Promise.all([
    runlog.events(runId),
    runlog.events(replayRunId).catch(unlessMissing([] as RunEvent[])),
  ]);
  const inputs = inputsOf(recorded);
  const given = inputsOf(replayed).length;
  if (given >= inputs.length || outcome.status !== "completed")
    return { done: true, logs: { recorded, replayed } };
  try {
    await runlog.send(replayRunId, inputs[given]!, { idempotencyKey: `replay-input-${given}` });
  } catch (error) {
    // Another read sent it first and the run is executing it: the next read sees it.
    if (!(error instanceof ConflictError)) throw error;
  }
  return { done: false, logs: { recorded } };
}
