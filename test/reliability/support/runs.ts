import { expect } from "vitest";
import { library, runlog, script } from "../../support/cli.ts";

/** A run whose first model call crashed; resuming it plays `turn` (slow with `delayMs`, so resumers overlap). */
export async function crashedRun(
  dir: string,
  runId: string,
  turn: { text: string; stop: "stop"; delayMs?: number },
): Promise<void> {
  const model = script(dir, runId, [turn]);
  const crashed = await runlog(dir, ["run", "--run-id", runId, "--model", model, "go"], {
    RUNLOG_CRASH_AT: "model:before",
  });
  expect(crashed.code, crashed.stderr).toBe(137);
}

/** The run's head as `ls` sees it: it must agree with the log once everyone is done. */
export async function listedStatus(dir: string, runId: string): Promise<string | undefined> {
  const page = await (await library(dir)).runlog.list({ limit: 100 });
  return page.runs.find((run) => run.runId === runId)?.status;
}
