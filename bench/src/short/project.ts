/**
 * The user's side of the short/perf section: a temporary project that has runlog (this checkout,
 * built) and zod installed by link, holding short/child.mjs, the model scripts and the tool's pages;
 * and the spawning of fresh processes, timed whole.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { FINAL_ANSWER, TOOL_NAME, toolArgs, toolResult, USER_INPUT } from "../workload.ts";

export const ROOT = resolve(import.meta.dirname, "..", "..", "..");
/** The short run and the long one (turns). */
export const SHORT = 10;
export const LONG = 1000;
export const CONCURRENT_RUNS = 200;
export const CONCURRENT_TURNS = 20;
export const MODEL_DELAY_MS = 50;

export const env = {
  ...process.env,
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "1",
  NODE_NO_WARNINGS: "1",
};

/** `env` and the workload child.mjs runs (workload.ts's), in the variable it reads. */
export const workloadEnv: NodeJS.ProcessEnv = {
  ...env,
  RUNLOG_BENCH_WORKLOAD: JSON.stringify({
    toolName: TOOL_NAME,
    input: USER_INPUT,
    finalAnswer: FINAL_ANSWER,
  }),
};

/** `npm run build`: the linked project's `import "runlog"` then loads what lib/ is now. */
export function buildPackage(): void {
  const build = spawnSync("npm", ["run", "build", "--silent"], { cwd: ROOT, encoding: "utf8" });
  if (build.status !== 0)
    throw new Error(`npm run build failed: ${(build.stdout + build.stderr).trim().slice(-600)}`);
}

/** Spawn node with `args` in `cwd`; the wall time of the whole process, and its last stdout line as JSON. */
export function spawnNode(
  args: string[],
  options: { cwd: string; expect?: number; env?: NodeJS.ProcessEnv },
): { ms: number; report: Record<string, unknown> } {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, {
    cwd: options.cwd,
    env: options.env ?? env,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: 10 * 60_000,
    killSignal: "SIGKILL",
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== (options.expect ?? 0)) {
    const lines = (result.stderr ?? "").trim().split("\n");
    const why =
      result.error?.message ??
      lines.find((line) => /^\w*Error\b/.test(line.trim())) ??
      lines.slice(-3).join(" | ");
    throw new Error(`node ${args.join(" ")}: exit ${result.status ?? result.signal}: ${why}`);
  }
  const last = (result.stdout ?? "").trim().split("\n").at(-1) ?? "";
  return { ms, report: /^[[{]/.test(last) ? (JSON.parse(last) as Record<string, unknown>) : {} };
}

/** A project of a user's that has runlog (this checkout, built) and zod installed, by link. */
export function userProject(): string {
  const dir = mkdtempSync(join(tmpdir(), "runlog-bench-short-"));
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "bench-user", private: true, type: "module" }),
  );
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(ROOT, join(dir, "node_modules", "runlog"), "dir");
  symlinkSync(join(ROOT, "node_modules", "zod"), join(dir, "node_modules", "zod"), "dir");
  copyFileSync(join(import.meta.dirname, "child.mjs"), join(dir, "child.mjs"));
  writeFileSync(join(dir, "import.mjs"), 'import "runlog";\n');
  mkdirSync(join(dir, "pages"));
  for (let i = 0; i <= LONG + 1; i++) writeFileSync(join(dir, "pages", `${i}.txt`), toolResult(i));
  const script = (toolTurns: number, delayMs?: number) => {
    const turns: unknown[] = [];
    for (let k = 0; k < toolTurns; k++) {
      turns.push({
        toolCalls: [{ name: TOOL_NAME, arguments: toolArgs(k) }],
        ...(delayMs ? { delayMs } : {}),
      });
    }
    turns.push({ text: FINAL_ANSWER, stop: "stop", ...(delayMs ? { delayMs } : {}) });
    return JSON.stringify({ turns });
  };
  // 1: the throwaway run of bench/src/firstRun.ts.
  for (const n of [1, SHORT, SHORT + 1, LONG + 1]) writeFileSync(join(dir, `script-${n}.json`), script(n));
  writeFileSync(join(dir, `script-${CONCURRENT_TURNS}-slow.json`), script(CONCURRENT_TURNS, MODEL_DELAY_MS));
  return dir;
}

/** Copy a data dir left by a killed run, without SQLite's shared-memory index (rebuilt on open). */
export function copyData(from: string, to: string): void {
  cpSync(from, to, { recursive: true, filter: (source) => !source.endsWith("-shm") });
}
