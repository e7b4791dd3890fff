import { expect } from "vitest";
import { NotFoundError } from "../../../lib/core/errors.ts";
import { type CliResult, events, library, runlog, type ShownEvent } from "../../support/cli.ts";

/** What one crash-matrix case did: processes spawned, crashes injected, and how it got to the end. */
export interface Drive {
  spawns: number;
  crashes: number;
  resumes: number;
  approvals: number;
  forks: number;
  /** A run's log after every process that touched it ended. */
  snapshots: { runId: string; log: ShownEvent[] }[];
}

/** Exit codes a CLI process may end with here: done, not done, paused, crashed. */
const EXPECTED_CODES = [0, 1, 3, 137];

/**
 * Runs CLI processes against one data dir, injecting `RUNLOG_CRASH_AT` into
 * each while fewer than `budget` of them have crashed; the first one crashes
 * at the `nth` pass of the point, later ones at the first.
 */
export class CrashDriver {
  readonly drive: Drive = { spawns: 0, crashes: 0, resumes: 0, approvals: 0, forks: 0, snapshots: [] };

  constructor(
    private readonly dir: string,
    private readonly point: string,
    private readonly nth: number,
    private readonly budget: number,
  ) {}

  /** Spawn `runlog ARGS`; then snapshot the log of `runId` as that process left it. */
  async spawn(args: string[], runId: string): Promise<CliResult> {
    const at = this.drive.spawns === 0 ? `${this.point}@${this.nth}` : this.point;
    const env: Record<string, string> = this.drive.crashes < this.budget ? { RUNLOG_CRASH_AT: at } : {};
    const result = await runlog(this.dir, args, env);
    this.drive.spawns++;
    expect(EXPECTED_CODES, `runlog ${args.join(" ")}: ${result.stderr}`).toContain(result.code);
    if (result.code === 137) this.drive.crashes++;
    // A process that failed before creating the run leaves nothing to snapshot; the caller checks its exit.
    const log = await events(this.dir, runId).catch((error: unknown) => {
      if (error instanceof NotFoundError) return [];
      throw error;
    });
    this.drive.snapshots.push({ runId, log });
    return result;
  }

  /** Resume, approve or wait until the run completes, asking the library (in-process) where it stands. */
  async finish(runId: string): Promise<ShownEvent[]> {
    const { runlog: lib } = await library(this.dir);
    for (let round = 0; round < 10; round++) {
      const point = await lib.resumePoint(runId);
      if (!point.resumable && point.reason === "completed") return events(this.dir, runId);
      if (!point.resumable && point.reason === "awaiting_approval") {
        for (const call of point.waitingToolCalls ?? []) {
          await this.spawn(["approve", runId, call.id, "--by", "matrix"], runId);
          this.drive.approvals++;
        }
        continue;
      }
      expect(point, `resume point of ${runId}`).toMatchObject({ resumable: true });
      await this.spawn(["resume", runId], runId);
      this.drive.resumes++;
    }
    throw new Error(`run ${runId} did not complete after 10 rounds`);
  }
}
