import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve as resolvePath } from "node:path";
import { type LocalRunlog, openLocal } from "../../lib/api/local.ts";
import { NAMES } from "../../lib/runtime/config.ts";
import { SUITE_ENDPOINT_VARIABLE } from "./dynamodbSuite.ts";

export const ROOT = join(import.meta.dirname, "..", "..");
const BIN = join(ROOT, "bin", "runlog.js");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A fresh data directory for one test file. */
export function tempDataDir(label = "runlog"): string {
  return mkdtempSync(join(tmpdir(), `${label}-`));
}

/**
 * Set when the suite runs on the DynamoDB adapter (vitest.dynamodb.config.ts): the
 * server every runlog process of the suite uses. Unset, they use the SQLite file in their data dir.
 */
const SUITE_ENDPOINT = process.env[SUITE_ENDPOINT_VARIABLE];
/** For a process started without a data dir of its own: this test file's table. */
const FILE_TABLE = `e2e-${randomUUID()}`;

/**
 * Where a data dir's runs are stored: nothing to set on SQLite (the file in the dir); on
 * DynamoDB, the suite's endpoint and a table named after the dir, so tests stay independent.
 */
export function storeEnv(dir?: string): Record<string, string> {
  if (!SUITE_ENDPOINT) return {};
  return {
    [NAMES.dynamodbEndpoint]: SUITE_ENDPOINT,
    [NAMES.table]: dir === undefined ? FILE_TABLE : tableOf(dir),
  };
}

/** A valid DynamoDB table name (letters, digits, `_.-`, at most 255) naming the dir: /tmp/demo-x/demo -> tmp.demo-x.demo */
const tableOf = (dir: string) =>
  resolvePath(dir)
    .replace(/[^\w.-]+/g, ".")
    .replace(/^\.+/, "")
    .slice(-255);

/**
 * Env every CLI test runs with: fast workflow retries, no inherited crash point or provider
 * key, the suite's store (see storeEnv; pass `storeEnv(dir)` in `extra` for a data dir's own).
 */
export function testEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const field of ["crashAt", "openaiApiKey", "dynamodbEndpoint", "table", "agents"] as const) {
    delete env[NAMES[field]];
  }
  return { ...env, [NAMES.retryIntervalMs]: "5", ...storeEnv(), ...extra };
}

export interface SpawnOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Written to the child's stdin, then closed; stdin is /dev/null without it. */
  stdin?: string | Buffer;
}

/**
 * Run `node ARGS` in a child process with stdout and stderr on pipes (as `| wc -c` would),
 * read as bytes so nothing is decoded on the way. A signal reads as exit 128.
 */
export function spawnNode(
  args: string[],
  options: SpawnOptions = {},
): Promise<CliResult & { bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: options.env ?? testEnv(),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => err.push(chunk));
    if (options.stdin !== undefined) child.stdin?.end(options.stdin);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const bytes = Buffer.concat(out);
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: bytes.toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        bytes,
      });
    });
  });
}

/** Run the real `runlog` binary in a child process, on the data dir `dir`. */
export function runlog(dir: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return spawnNode([BIN, ...args, "--dir", dir], { env: testEnv({ ...storeEnv(dir), ...env }) });
}

/** Run a `--json` command and parse its one JSON object. */
export async function runlogJson<T = Record<string, unknown>>(
  dir: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<CliResult & { json: T }> {
  const result = await runlog(dir, [...args, "--json"], env);
  try {
    return { ...result, json: JSON.parse(result.stdout) as T };
  } catch {
    throw new Error(
      `runlog ${args.join(" ")} printed no JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`,
    );
  }
}

/** Write a model script into the data dir and return its `scripted:` spec. */
export function script(dir: string, name: string, turns: unknown[]): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ turns }));
  return `scripted:${path}`;
}

/**
 * A run `runId` of the demo's idempotent `wait` tool, killed (exit 137) while its one call runs:
 * its log rests with the call started and unanswered, which a resume runs again.
 */
export async function killedMidWait(dir: string, runId: string): Promise<void> {
  const model = script(dir, `${runId}-model`, [
    { toolCalls: [{ name: "wait", arguments: { ms: 1 } }] },
    { text: "ok" },
  ]);
  const killed = await runlog(dir, ["run", "--run-id", runId, "--model", model, "wait"], {
    RUNLOG_CRASH_AT: "tool:after-start",
  });
  if (killed.code !== 137)
    throw new Error(`run ${runId} was to be killed mid-call, but exited ${killed.code}: ${killed.stderr}`);
}

/** The lines of notes.txt (the demo's side effect). */
export function notes(dir: string): string[] {
  try {
    return readFileSync(join(dir, "notes.txt"), "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

export interface ShownEvent {
  seq: number;
  type: string;
  [key: string]: unknown;
}

const libraries = new Map<string, Promise<LocalRunlog>>();

/** The library API on a data dir, in this process (on the same store the CLI uses). */
export function library(dir: string): Promise<LocalRunlog> {
  let opened = libraries.get(dir);
  if (!opened) {
    opened = openLocal({ dataDir: dir, env: testEnv(storeEnv(dir)) });
    libraries.set(dir, opened);
  }
  return opened;
}

/** A run's log, read through the library (the CLI's `show --json` prints the same events). */
export async function events(dir: string, runId: string): Promise<ShownEvent[]> {
  return (await (await library(dir)).runlog.events(runId)) as unknown as ShownEvent[];
}

/** Close the in-process library. */
export async function cleanup(dir: string): Promise<void> {
  const opened = libraries.get(dir);
  libraries.delete(dir);
  await (await opened)?.close();
}
