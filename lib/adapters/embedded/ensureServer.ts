import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, renameSync, statSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { RetryableError } from "../../core/errors.ts";
import {
  isAlive,
  liveServer,
  readServerInfo,
  removeServerInfo,
  type ServerFiles,
  type ServerInfo,
  serverFiles,
  sleep,
} from "./serverFiles.ts";
import { releaseStartLock, tryStartLock } from "./startLock.ts";

export interface EnsureOptions {
  /** The environment the server is started with (RUNLOG_SERVER_IDLE_MS …). @default process.env */
  env?: NodeJS.ProcessEnv;
  /** How long to wait for a server to answer. @default 30000 */
  timeoutMs?: number;
}

const SERVER_MAIN = fileURLToPath(new URL("./serverMain.ts", import.meta.url));
// Resolved here, not by the child: the CLI may run from a directory where `tsx` is not resolvable.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const MAX_SPAWNS = 3;
const MAX_LOG_BYTES = 1_000_000;

const endpointOf = (info: ServerInfo) => ({ endpoint: `http://127.0.0.1:${info.port}` });

async function startFailure(files: ServerFiles, why: string): Promise<RetryableError> {
  const log = await readFile(files.log, "utf8").catch(() => "");
  const tail = log.trimEnd().split("\n").slice(-10).join("\n");
  return new RetryableError(
    `the embedded DynamoDB server for ${files.dir} ${why}; see ${files.log}${tail ? `:\n${tail}` : ""}`,
  );
}

function spawnServer(files: ServerFiles, env: NodeJS.ProcessEnv): ChildProcess {
  // Output goes to the log file, so a server that dies on start-up still says why.
  const size = (() => {
    try {
      return statSync(files.log).size;
    } catch {
      return 0;
    }
  })();
  if (size > MAX_LOG_BYTES) renameSync(files.log, `${files.log}.1`);
  const log = openSync(files.log, "a");
  try {
    const child = spawn(process.execPath, ["--import", TSX, SERVER_MAIN, files.dir], {
      detached: true,
      stdio: ["ignore", log, log],
      cwd: files.dir,
      env,
    });
    child.unref();
    return child;
  } finally {
    closeSync(log);
  }
}

/** Holding the start lock: spawn a server and wait until one (ours or a racer's) answers. */
async function startServer(files: ServerFiles, deadline: number, env: NodeJS.ProcessEnv) {
  let spawns = 0;
  let running = false;
  for (;;) {
    const live = await liveServer(files);
    if (live) return live;
    if (Date.now() > deadline) throw await startFailure(files, "did not start in time");
    if (!running) {
      if (spawns === MAX_SPAWNS) throw await startFailure(files, `exited ${spawns} times while starting`);
      spawns++;
      running = true;
      spawnServer(files, env).once("exit", () => {
        running = false;
      });
    }
    await sleep(50);
  }
}

/**
 * The endpoint of the one embedded server for this data dir, starting it if
 * none is running. Safe to call from many processes at once: they converge
 * on a single detached server, which outlives them and stops when idle.
 */
export async function ensureEmbeddedServer(
  dataDir: string,
  options: EnsureOptions = {},
): Promise<{ endpoint: string }> {
  const files = serverFiles(dataDir);
  const env = options.env ?? process.env;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  await mkdir(files.dir, { recursive: true });
  for (;;) {
    const live = await liveServer(files);
    if (live) return endpointOf(live);
    if (await tryStartLock(files)) {
      try {
        return endpointOf(await startServer(files, deadline, env));
      } finally {
        await releaseStartLock(files);
      }
    }
    if (Date.now() > deadline)
      throw await startFailure(files, "did not start in time (another process was starting it)");
    await sleep(50);
  }
}

/** Only signal a process we can tell is our server: a pid in a stale server.json may since belong to anyone. */
async function isOurServer(pid: number): Promise<boolean> {
  const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => undefined);
  return cmdline === undefined || cmdline.includes("serverMain");
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // it went away by itself
  }
}

/** Stop the data dir's server (SIGTERM, then SIGKILL if it will not go) and wait until it is gone. */
export async function stopEmbeddedServer(
  dataDir: string,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  const files = serverFiles(dataDir);
  const info = await readServerInfo(files);
  if (!info) return;
  if (isAlive(info.pid) && (await isOurServer(info.pid))) {
    const deadline = Date.now() + (options.timeoutMs ?? 30_000);
    signal(info.pid, "SIGTERM");
    while (isAlive(info.pid) && Date.now() < deadline) await sleep(25);
    if (isAlive(info.pid)) {
      signal(info.pid, "SIGKILL");
      while (isAlive(info.pid)) await sleep(25);
    }
  }
  await removeServerInfo(files, info.pid);
}
