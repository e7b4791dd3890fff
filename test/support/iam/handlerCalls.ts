import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { BUILT_VARIABLE } from "../build.ts";
import type { AwsCall } from "./awsCalls.ts";
import { CALLS_DIR_VARIABLE } from "./recorder.ts";

const ROOT = join(import.meta.dirname, "..", "..", "..");

/** The handler tests whose calls are checked: every file runs the functions' handlers on dynalite. */
export const HANDLER_TESTS = "test/functions";

/**
 * Run the handler tests in a vitest of their own, each file recording the AWS calls its functions
 * make, and return every call. In a child process because each file has its own function
 * environment (its own dynalite, its own deps): they cannot share one process. Fails, with the
 * child's output, when a handler test fails, since its calls would then be incomplete.
 */
export async function recordHandlerTests(): Promise<AwsCall[]> {
  const dir = mkdtempSync(join(tmpdir(), "runlog-aws-calls-"));
  try {
    const vitest = join(ROOT, "node_modules", "vitest", "vitest.mjs");
    // Not the outer run's worker settings: the child is a vitest run of its own.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST")),
    );
    await promisify(execFile)(process.execPath, [vitest, "run", HANDLER_TESTS, "--reporter=dot"], {
      cwd: ROOT,
      env: { ...env, [CALLS_DIR_VARIABLE]: dir, [BUILT_VARIABLE]: "1" },
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(
        `the handler tests failed, so their calls are incomplete:\n${error.stdout}\n${error.stderr}`,
        {
          cause: error,
        },
      );
    });
    return readdirSync(dir).flatMap((file) => JSON.parse(readFileSync(join(dir, file), "utf8")) as AwsCall[]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
