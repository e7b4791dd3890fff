import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** This process's environment without the variables that point runlog away from the embedded server. */
export function embeddedEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { RUNLOG_DYNAMODB_ENDPOINT: _endpoint, RUNLOG_TABLE: _table, ...env } = process.env;
  return { ...env, ...extra };
}

export function tempDataDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `runlog-${label}-`));
}

export function serverPid(dataDir: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(join(dataDir, "server.json"), "utf8")) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

export interface Fixture {
  child: ChildProcess;
  lines: string[];
  exit: Promise<{ code: number | null; stderr: string }>;
}

/** Start a fixture script as its own OS process, collecting its stdout lines. */
export function runFixture(name: string, args: string[], env: NodeJS.ProcessEnv): Fixture {
  const script = fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { env, stdio: "pipe" });
  const lines: string[] = [];
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    const parts = stdout.split("\n");
    stdout = parts.pop() ?? "";
    lines.push(...parts);
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stderr })),
  );
  return { child, lines, exit };
}

/** Poll until `check` holds; tests fail by their own timeout, not by a timing assertion here. */
export async function until(check: () => boolean | Promise<boolean>, everyMs = 25): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, everyMs));
}
