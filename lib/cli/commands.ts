import { writeFile } from "node:fs/promises";
import type { RunOutcome } from "../api/types.ts";
import { outcomeView, type ResumeView, resumePointLines } from "../api/views.ts";
import { NotFoundError } from "../core/errors.ts";
import { scriptOf } from "../core/replay.ts";
import type { JsonValue } from "../core/structuredOutput.ts";
import { NAMES } from "../runtime/config.ts";
import { describeEvent } from "./format.ts";
import type { Io } from "./io.ts";
import { writablePath } from "./outputFile.ts";
import type { CliRuns, ListedRun, ReadRuns, RunFilter } from "./runs.ts";
import { columns } from "./table.ts";
import { EXIT, UsageError } from "./usage.ts";

export interface CommandContext<Runs extends ReadRuns = CliRuns> {
  /** The runs: a store this process opened, or the API `--url` names. */
  runs: Runs;
  io: Io;
  json: boolean;
  /** Where the runs are, as messages name it: the data dir (absolute), or the API's URL. */
  where: string;
  /** Where the deployment is, when its state machine executes the steps (lib/cli/stepsPlace.ts). */
  deployment?: string;
}

/** Print a run's outcome (as `view` has it for --json) and return the exit code it implies. */
export function reportOutcome(
  context: CommandContext,
  outcome: RunOutcome<JsonValue>,
  note?: string,
  view: object = outcomeView(outcome),
): number {
  const { io, json } = context;
  // Started on the deployment: its functions execute the run, which this command does not wait for.
  const started = context.deployment !== undefined && outcome.status === "running";
  if (json) io.json(view);
  else if (started) {
    if (note) io.out(note);
    io.out(`run ${outcome.runId}: running on ${context.deployment}`);
    io.out(`follow it: runlog show ${outcome.runId} (or runlog resume-point ${outcome.runId})`);
  } else {
    if (note) io.out(note);
    io.out(`run ${outcome.runId}: ${outcome.status}`);
    if (outcome.output !== null)
      io.out(typeof outcome.output === "string" ? outcome.output : JSON.stringify(outcome.output, null, 2));
    if (outcome.invalidOutput)
      io.out(
        `its final answer did not fit the agent's output schema: ${outcome.invalidOutput.problems}\n${outcome.invalidOutput.text}`,
      );
    if (outcome.status === "paused")
      io.out(
        `waiting for approval: runlog resume-point ${outcome.runId}, then runlog approve|reject ${outcome.runId} <callId>`,
      );
    else if (outcome.status === "waiting")
      io.out(
        `waiting for its sub-agent runs to end: runlog ls --children-of ${outcome.runId}; each one's end resumes it`,
      );
    else if (outcome.status === "budget_exhausted")
      io.out(
        `its budget is spent: runlog resume-point ${outcome.runId} says which limit, then runlog resume ${outcome.runId} --max-turns N (or --max-tokens, --max-cost-usd) to raise it`,
      );
    else if (outcome.status !== "completed")
      io.out(`see where it stopped: runlog resume-point ${outcome.runId}`);
  }
  if (outcome.status === "paused" || outcome.status === "waiting") return EXIT.paused;
  return outcome.status === "completed" || started ? EXIT.completed : EXIT.failed;
}

export async function runCommand(
  context: CommandContext,
  request: { agent: string; input: string; model?: string; runId?: string },
): Promise<number> {
  const { outcome, created } = await context.runs.start(request);
  const note = created ? undefined : `run ${outcome.runId} already exists with this input; not started again`;
  return reportOutcome(context, outcome, note);
}

/**
 * `resume`. `settingFlags` are the flags typed that change how the run goes on (--model, its
 * settings, its limits): on a run that does not resume they cannot take effect, which is refused
 * (exit 2) rather than dropped; nothing was written.
 */
export async function resumeCommand(
  context: CommandContext,
  request: { runId: string; model?: string },
  settingFlags: readonly string[] = [],
) {
  const { view, description }: { view: ResumeView; description?: string } =
    await context.runs.resume(request);
  if (!view.resumed && settingFlags.length > 0)
    throw new UsageError(
      `resume: ${settingFlags.join(", ")} cannot take effect: run ${request.runId} does not resume (${description}); nothing was written`,
    );
  const note = view.resumed ? undefined : `nothing to resume: ${description}`;
  return reportOutcome(context, view, note, view);
}

export async function resumePointCommand(
  { runs, io, json }: CommandContext<ReadRuns>,
  runId: string,
): Promise<number> {
  const point = await runs.resumePoint(runId).catch((error: unknown) => {
    throw withAgentsFlag(error, runId);
  });
  if (json) {
    io.json(point);
  } else {
    io.lines(resumePointLines(point));
  }
  return EXIT.completed;
}

/**
 * A run's interrupted tool calls are judged by its agent's tools (which may run again): an agent
 * this CLI does not serve is one --agents was not given. A NotFoundError that is not about the run
 * (no runId: the registry's unknown agent) says so, naming the flag.
 */
function withAgentsFlag(error: unknown, runId: string): unknown {
  if (!(error instanceof NotFoundError) || error.runId !== undefined) return error;
  return new NotFoundError(
    `${error.message}: run ${runId} stopped in tool calls, which its agent's tools judge: pass the module that exports its agents with --agents MODULE (or ${NAMES.agents})`,
    { runId, cause: error },
  );
}

export async function showCommand(
  { runs, io, json }: CommandContext<ReadRuns>,
  runId: string,
): Promise<number> {
  const events = await runs.events(runId);
  if (json) io.json({ runId, events });
  else {
    const rows = events.map((event) => [`#${event.seq}`, event.at, describeEvent(event)]);
    io.lines(columns(rows, ["right"]));
  }
  return EXIT.completed;
}

/**
 * `script`: a run's model turns as a scripted-model file, to stdout or `--out FILE`, so
 * `--model scripted:FILE` plays the run again (docs/guides/replay.md).
 */
export async function scriptCommand(
  context: CommandContext<ReadRuns>,
  runId: string,
  out?: string,
): Promise<number> {
  const file = out === undefined ? undefined : writablePath("script", "--out", out);
  const script = scriptOf(await context.runs.events(runId));
  if (file === undefined) {
    context.io.json(script);
    return EXIT.completed;
  }
  await writeFile(file, `${JSON.stringify(script, null, 2)}\n`);
  if (context.json) context.io.json({ runId, out, turns: script.turns.length });
  else context.io.out(`wrote the ${script.turns.length} model turn(s) of run ${runId} to ${out}`);
  return EXIT.completed;
}

/** `ls`: every run (or those in a status, or a run's forks), newest activity first. */
export async function listCommand(
  context: CommandContext<ReadRuns>,
  filter: RunFilter = {},
): Promise<number> {
  const runs: ListedRun[] = [];
  let cursor: string | undefined;
  do {
    const page = await context.runs.list(filter, cursor);
    runs.push(...page.runs);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return printRuns(context, runs, filter);
}

/** `ls`'s output: one line a run, or one JSON object. */
export function printRuns(
  { io, json, where }: Omit<CommandContext, "runs">,
  runs: ListedRun[],
  { status, parent, childrenOf }: RunFilter = {},
): number {
  if (json) {
    io.json({ runs });
    return EXIT.completed;
  }
  const what =
    childrenOf !== undefined
      ? `sub-agent runs of run ${childrenOf}`
      : parent === undefined
        ? "runs"
        : `forks of run ${parent}`;
  const which = `${status ? `${status} ` : ""}${what}`;
  if (runs.length === 0) io.out(`no ${which} in ${where}`);
  const rows = runs.map((run) => [run.runId, run.status, run.agent, `${run.lastSeq} events`, run.updatedAt]);
  io.lines(columns(rows, ["left", "left", "left", "right", "left"]));
  return EXIT.completed;
}
