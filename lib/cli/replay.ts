import { readFile, writeFile } from "node:fs/promises";
import {
  REPLAY_TOOLS,
  type ReplayedRun,
  type ReplayReport,
  type ReplayTools,
  replayRuns,
} from "../api/replay.ts";
import { errorMessage, NotFoundError } from "../core/errors.ts";
import { describeDifference } from "../core/replayDiff.ts";
import { NAMES } from "../runtime/config.ts";
import type { RunlogConfig } from "../runtime/readConfig.ts";
import { agentsOption } from "./agentsModule.ts";
import { dataDir } from "./dataDir.ts";
import { parseFlags } from "./flags.ts";
import { commandHelp } from "./help.ts";
import type { Io } from "./io.ts";
import { junitOf } from "./junit.ts";
import { writablePath } from "./outputFile.ts";
import { isDeployedTable } from "./stepsPlace.ts";
import { COMMON, EXIT, UsageError } from "./usage.ts";

/** `replay`'s flags (its help, in help.ts, names each). */
export const REPLAY_OPTIONS = {
  ...COMMON,
  model: { type: "string" },
  "ids-from": { type: "string" },
  tools: { type: "string", default: "recorded" },
  "fail-on-change": { type: "boolean", default: false },
  junit: { type: "string" },
  concurrency: { type: "string" },
} as const;

/**
 * `runlog replay <runId…> --model SPEC`: each run's inputs again on the model, under a new run id,
 * and what changed. Every argument is checked, and every run found, before the first replay
 * starts: bad usage exits 2 with nothing written. Exit 1 with --fail-on-change when a run changed.
 */
export async function replayCommand(
  args: string[],
  io: Io,
  config: RunlogConfig,
  /** Progress lines go to stderr only on a terminal. @default whether stderr is a TTY */
  terminal = process.stderr.isTTY === true,
): Promise<number> {
  const { values, positionals } = parseFlags(
    "replay",
    { args, options: REPLAY_OPTIONS, strict: true, allowPositionals: true },
    { min: 0, max: Number.POSITIVE_INFINITY, names: "run ids" },
  );
  if (values.help) {
    io.out(commandHelp("replay"));
    return EXIT.completed;
  }
  const runIds = [...positionals, ...(await idsFrom(values["ids-from"]))];
  if (runIds.length === 0)
    throw new UsageError("replay: name at least one run id (or --ids-from FILE, one id a line)");
  const model = values.model;
  if (model === undefined || model.trim() === "")
    throw new UsageError("replay: --model SPEC is required: the model the runs are replayed on");
  const tools = values.tools;
  if (!(REPLAY_TOOLS as readonly string[]).includes(tools))
    throw new UsageError(`replay: --tools takes recorded or live, got ${JSON.stringify(tools)}`);
  const concurrency = parseConcurrency(values.concurrency);
  const junit = values.junit === undefined ? undefined : writablePath("replay", "--junit", values.junit);
  if (isDeployedTable(config))
    throw new UsageError(
      `replay runs its steps on this machine, and ${NAMES.table} names a deployed table: unset it to replay runs of a local store`,
    );
  const dir = await dataDir(values.dir, config.dataDir, { create: false });
  if (!dir.exists) throw new NotFoundError(`run ${runIds[0]} not found`, { runId: runIds[0]! });
  const module = await agentsOption(values.agents, config.agents);
  const report = await replayRuns({
    dataDir: dir.path,
    runIds,
    model,
    tools: tools as ReplayTools,
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(module === undefined ? {} : { agents: module.agents }),
    ...(module?.models === undefined ? {} : { models: module.models }),
    ...(module?.prices === undefined ? {} : { prices: module.prices }),
    ...(terminal ? { onProgress: (run, done, total) => io.err(progressOf(run, done, total)) } : {}),
  });
  if (junit !== undefined) await writeFile(junit, junitOf(report));
  if (values.json) io.json(report);
  else printReport(io, report);
  return values["fail-on-change"] && report.changed > 0 ? EXIT.failed : EXIT.completed;
}

/** The run ids a file lists, one a line; blank lines and lines starting with # are skipped. */
async function idsFrom(path: string | undefined): Promise<string[]> {
  if (path === undefined) return [];
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new UsageError(`replay: --ids-from ${path} cannot be read: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

function parseConcurrency(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new UsageError(
      `replay: --concurrency takes a whole number of 1 or more, got ${JSON.stringify(value)}`,
    );
  return Number(value);
}

function progressOf(run: ReplayedRun, done: number, total: number): string {
  return `replay ${done}/${total}: ${run.runId} ${run.changed ? "changed" : "unchanged"}`;
}

function printReport(io: Io, report: ReplayReport): void {
  for (const run of report.runs) {
    io.out(`${run.runId} -> ${run.replayRunId}: ${run.changed ? "changed" : "unchanged"}`);
    if (run.error !== undefined) io.out(`  replay failed: ${run.error}`);
    for (const difference of run.differences) io.out(`  ${describeDifference(difference)}`);
    const { recorded, replayed } = run.figures;
    const cost = (f: { costUsd?: number }) => (f.costUsd === undefined ? "" : `, $${f.costUsd.toFixed(4)}`);
    io.out(
      `  recorded ${recorded.turns} turns, ${recorded.tokens} tokens${cost(recorded)}; replayed ${replayed.turns} turns, ${replayed.tokens} tokens${cost(replayed)}`,
    );
  }
  io.out(`${report.changed} of ${report.runs.length} run(s) changed`);
}
