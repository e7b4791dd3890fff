import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Set to keep a test run's temporary files (to look at what a failed test left). */
const KEEP_VARIABLE = "RUNLOG_KEEP_TEST_TMP";

/**
 * vitest globalSetup: one temporary folder for the whole test run, made the `TMPDIR` of every
 * worker and of every process a test spawns, and removed when the run ends. Tests make their data
 * dirs, stores and projects with `mkdtemp` under `tmpdir()` and most leave them (a crash test's
 * store, a killed child's notes), so without it each `npm test` left a few hundred folders in /tmp.
 */
export default function tempRoot(): () => void {
  const before = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), "runlog-tests-"));
  process.env.TMPDIR = root;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    if (process.env[KEEP_VARIABLE] === "1") {
      process.stderr.write(`${KEEP_VARIABLE}=1: this run's temporary files are kept in ${root}\n`);
      return;
    }
    rmSync(root, { recursive: true, force: true });
  };
}
