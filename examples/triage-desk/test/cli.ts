import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { RunEvent } from "runlog";

/** The installed `runlog` bin, run with the Node running the tests (not whichever `node` is first on PATH). */
const BIN = join(dirname(createRequire(import.meta.url).resolve("runlog/package.json")), "bin", "runlog.js");
const AGENTS = join(import.meta.dirname, "..", "src", "agents.ts");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A fresh data directory for the runs of one test. */
export const tempDir = (label: string) => mkdtempSync(join(tmpdir(), `triage-desk-${label}-`));

/**
 * `runlog ARGS --dir DIR` in its own process, serving this project's agents and models
 * (RUNLOG_AGENTS). `crashAt` sets RUNLOG_CRASH_AT: the process exits 137 at that point.
 */
export function runlog(dir: string, args: string[], crashAt?: string): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, RUNLOG_AGENTS: AGENTS };
  delete env.RUNLOG_CRASH_AT;
  if (crashAt !== undefined) env.RUNLOG_CRASH_AT = crashAt;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args, "--dir", dir], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
  });
}

/** A `--json` command's one object. */
export async function runlogJson<T>(dir: string, args: string[]): Promise<T> {
  const result = await runlog(dir, [...args, "--json"]);
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(
      `runlog ${args.join(" ")} printed no JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`,
    );
  }
}

/** A run's log as `runlog show --json` prints it. */
export async function shown(dir: string, runId: string): Promise<RunEvent[]> {
  return (await runlogJson<{ events: RunEvent[] }>(dir, ["show", runId])).events;
}
