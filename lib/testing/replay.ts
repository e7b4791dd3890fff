import { type ReplayReport, type ReplayRequest, replayRuns } from "../api/replay.ts";
import { describeDifference } from "../core/replayDiff.ts";

/** A recorded run that changed on replay: the error names each run and its differences. */
export class ReplayChangedError extends Error {
  constructor(
    /** The whole report: every run, changed or not. */
    readonly report: ReplayReport,
  ) {
    const lines = report.runs
      .filter((run) => run.changed)
      .flatMap((run) => [
        `${run.runId} (replayed as ${run.replayRunId}):`,
        ...(run.error === undefined ? [] : [`  replay failed: ${run.error}`]),
        ...run.differences.map((difference) => `  ${describeDifference(difference)}`),
      ]);
    super(
      `${report.changed} of ${report.runs.length} recorded run(s) changed on replay\n${lines.join("\n")}`,
    );
    this.name = new.target.name;
  }
}

/**
 * Replay recorded runs (replayRuns) and throw a ReplayChangedError naming every difference if any
 * run changed; returns the report when none did. For a test suite: `await
 * expectReplaysUnchanged({ dataDir, runIds, model, agents })` fails the test with what changed.
 */
export async function expectReplaysUnchanged(request: ReplayRequest): Promise<ReplayReport> {
  const report = await replayRuns(request);
  if (report.changed > 0) throw new ReplayChangedError(report);
  return report;
}
