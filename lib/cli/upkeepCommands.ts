/**
 * The operator's upkeep commands over many runs: `sweep` (resume runs whose executor died, expire
 * approvals) and `redrive` (resume failed runs), with their flags and reports.
 */
import type { RedriveReport, SweepReport } from "../api/types.ts";
import { type Command, optional, str } from "./command.ts";
import type { CommandContext } from "./commands.ts";
import { UsageError } from "./usage.ts";

function parseCount(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value))
    throw new UsageError(`sweep: ${flag} takes a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

const DURATION_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration as `--since` takes it: a whole number and a unit, 90s, 30m, 2h, 1d. */
export function parseDuration(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)([smhd])$/.exec(value);
  if (!match || Number(match[1]) === 0)
    throw new UsageError(`${flag} takes a duration such as 30m, 2h or 1d, got ${JSON.stringify(value)}`);
  return Number(match[1]) * DURATION_UNITS[match[2]!]!;
}

/** `sweep` and `redrive`. */
export const UPKEEP_COMMANDS = {
  sweep: {
    options: { "stale-after": { type: "string" }, "max-resumes": { type: "string" } },
    positionals: { min: 0, max: 0, names: "no arguments" },
    withoutRuns: (context) =>
      printSweep(context, {
        examined: 0,
        resumed: [],
        skipped: [],
        failed: [],
        complete: true,
        approvals: { examined: 0, expired: [], failed: [], complete: true },
      }),
    run: async (context, values) => {
      // Locally a dead executor is known at once (its process is gone), so by default nothing waits.
      const staleAfter = parseCount("--stale-after", str(values, "stale-after")) ?? 0;
      const maxResumes = parseCount("--max-resumes", str(values, "max-resumes"));
      const report = await context.runs.sweep({
        staleAfterMs: staleAfter * 1000,
        ...(maxResumes === undefined ? {} : { maxAutoResumes: maxResumes }),
      });
      return printSweep(context, report);
    },
  },
  redrive: {
    options: {
      since: { type: "string" },
      agent: { type: "string" },
      "dry-run": { type: "boolean", default: false },
    },
    positionals: { min: 0, max: 0, names: "no arguments" },
    withoutRuns: (context) =>
      printRedrive(context, { dryRun: false, examined: 0, resumed: 0, skipped: 0, failed: 0, runs: [] }),
    run: async (context, values) => {
      const sinceMs = parseDuration("redrive: --since", str(values, "since"));
      const report = await context.runs.redrive({
        ...(sinceMs === undefined ? {} : { sinceMs }),
        ...optional("agent", str(values, "agent")),
        dryRun: values["dry-run"] === true,
      });
      return printRedrive(context, report);
    },
  },
} satisfies Record<string, Command>;

function printSweep({ io, json }: Omit<CommandContext, "runs">, report: SweepReport): number {
  if (json) io.json(report);
  else {
    io.out(
      `examined ${report.examined} running run(s): resumed ${report.resumed.length}, skipped ${report.skipped.length}, failed ${report.failed.length}`,
    );
    for (const run of report.resumed)
      io.out(`  resumed ${run.runId} (generation ${run.generation}, ${run.kind})`);
    for (const run of report.skipped) io.out(`  skipped ${run.runId}: ${run.why}`);
    for (const run of report.failed) io.out(`  failed  ${run.runId}: ${run.error}`);
    const { approvals } = report;
    if (approvals.expired.length > 0 || approvals.failed.length > 0) {
      io.out(
        `examined ${approvals.examined} paused run(s): approvals expired in ${approvals.expired.length}`,
      );
    }
    for (const run of approvals.expired) {
      const went = run.generation === undefined ? "" : `; went on as generation ${run.generation}`;
      io.out(`  expired ${run.runId}: ${run.callIds.join(", ") || "(decided before)"}${went}`);
    }
    for (const run of approvals.failed) io.out(`  failed  ${run.runId}: ${run.error}`);
  }
  return report.failed.length > 0 || report.approvals.failed.length > 0 ? 1 : 0;
}

function printRedrive({ io, json }: Omit<CommandContext, "runs">, report: RedriveReport): number {
  if (json) io.json(report);
  else {
    const resumed = report.dryRun ? "would resume" : "resumed";
    io.out(
      `examined ${report.examined} failed run(s): ${resumed} ${report.resumed}, skipped ${report.skipped}, failed ${report.failed}`,
    );
    for (const run of report.runs) {
      if (run.outcome === "resumed") io.out(`  resumed ${run.runId} (generation ${run.generation})`);
      else if (run.outcome === "would_resume") io.out(`  would resume ${run.runId}`);
      else if (run.outcome === "skipped") io.out(`  skipped ${run.runId}: ${run.why}`);
      else io.out(`  failed  ${run.runId}: ${run.error}`);
    }
  }
  return report.failed > 0 ? 1 : 0;
}
