import { expect } from "vitest";
import { library, runlog, script } from "../../support/cli.ts";

/** A scripted model turn, as the script file holds it. */
type Turn = Record<string, unknown>;

/**
 * A run crashed at `crashAt` (default: before its first model call); resuming it
 * plays `turns` from where it stopped (slow with `delayMs`, so resumers overlap).
 * One turn may be given alone.
 */
export async function crashedRun(
  dir: string,
  runId: string,
  turns: Turn | readonly Turn[],
  crashAt = "model:before",
): Promise<void> {
  const model = script(dir, runId, Array.isArray(turns) ? [...turns] : [turns]);
  const crashed = await runlog(dir, ["run", "--run-id", runId, "--model", model, "go"], {
    RUNLOG_CRASH_AT: crashAt,
  });
  expect(crashed.code, crashed.stderr).toBe(137);
}

/** The run's head as `ls` sees it: it must agree with the log once everyone is done. */
export async function listedStatus(dir: string, runId: string): Promise<string | undefined> {
  const page = await (await library(dir)).runlog.list({ limit: 100 });
  return page.runs.find((run) => run.runId === runId)?.status;
}
