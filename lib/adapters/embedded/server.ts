import { appendFileSync } from "node:fs";
import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { errorMessage } from "../../core/errors.ts";
import { listTables } from "./probe.ts";
import {
  liveServer,
  removeServerInfo,
  type ServerFiles,
  serverFiles,
  sleep,
  writeServerInfo,
} from "./serverFiles.ts";

type Dynalite = (options: {
  path: string;
  createTableMs: number;
  deleteTableMs: number;
  updateTableMs: number;
}) => Server;
type LevelDb = { open(): Promise<void>; close(): Promise<void> };

const require = createRequire(import.meta.url);
const dynalite = require("dynalite") as Dynalite;
// dynalite's own LevelDB binding, to test whether the database is free before dynalite opens it.
const { Level } = createRequire(require.resolve("dynalite"))("level") as {
  Level: new (path: string) => LevelDb;
};

/** How long to wait for a previous server (still closing) to let go of the LevelDB lock. */
const OPEN_WAIT_MS = 20_000;

export interface ServerSettings {
  /** Stop after this long with no requests. @default 60000 (RUNLOG_SERVER_IDLE_MS) */
  idleMs: number;
  /** Serve this long after withdrawing server.json, for clients that just read it. @default 1000 (RUNLOG_SERVER_GRACE_MS) */
  graceMs: number;
}

const positive = (value: string | undefined, fallback: number) => {
  const parsed = Number(value);
  return value !== undefined && Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
};

/** Settings from the environment the server was started with; bad values fall back to the defaults. */
export function serverSettings(env: NodeJS.ProcessEnv): ServerSettings {
  return {
    idleMs: positive(env.RUNLOG_SERVER_IDLE_MS, 60_000),
    graceMs: positive(env.RUNLOG_SERVER_GRACE_MS, 1_000),
  };
}

function logger(files: ServerFiles) {
  return (message: string) =>
    appendFileSync(files.log, `${new Date().toISOString()} [server ${process.pid}] ${message}\n`);
}

/** Wait until LevelDB can be opened; false when another live server already serves this data dir. */
async function waitForDatabase(files: ServerFiles, log: (m: string) => void): Promise<boolean> {
  const deadline = Date.now() + OPEN_WAIT_MS;
  for (;;) {
    const db = new Level(files.db);
    try {
      await db.open();
      await db.close();
      return true;
    } catch (error) {
      const other = await liveServer(files);
      if (other && other.pid !== process.pid) {
        log(`server ${other.pid} already serves this data dir; exiting`);
        return false;
      }
      const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
      const locked = cause?.code === "LEVEL_LOCKED" || /\block\b/i.test(String(cause?.message ?? ""));
      if (!locked) throw new Error(`cannot open ${files.db}: ${errorMessage(cause ?? error)}`);
      if (Date.now() > deadline) throw new Error(`the database stayed locked: ${errorMessage(cause)}`);
    }
    await sleep(100);
  }
}

/** Run dynalite on `<dataDir>/db` until idle or signalled; the process exits when it stops. */
export async function runEmbeddedServer(
  dataDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const files = serverFiles(dataDir);
  const settings = serverSettings(env);
  const log = logger(files);
  process.on("uncaughtException", (error) => {
    log(`crashed: ${error.stack ?? errorMessage(error)}`);
    void removeServerInfo(files, process.pid).finally(() => process.exit(1));
  });
  if (!(await waitForDatabase(files, log))) process.exit(0);

  const server = dynalite({ path: files.db, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  let inFlight = 0;
  let lastActivity = Date.now();
  server.prependListener("request", (req, res) => {
    // dynalite rethrows request stream errors, so a client killed mid-request would take the shared
    // server down with it; its error listener is swapped for a log line (the request just never happened).
    const on = req.on.bind(req) as (event: string, listener: (...args: unknown[]) => void) => unknown;
    (req as { on: unknown }).on = (event: string, listener: (...args: unknown[]) => void) =>
      on(event, event === "error" ? (error) => log(`request dropped: ${errorMessage(error)}`) : listener);
    inFlight++;
    lastActivity = Date.now();
    res.on("close", () => {
      inFlight--;
      lastActivity = Date.now();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  // Touch the database before announcing ourselves: a server that lost the LevelDB race dies here, unseen.
  await listTables(port);
  await writeServerInfo(files, { pid: process.pid, port, startedAt: new Date().toISOString() });
  log(`serving ${files.db} on 127.0.0.1:${port} (idle stop after ${settings.idleMs} ms)`);

  let stopping = false;
  let endGrace = () => {};
  const stop = async (reason: string, graceMs: number) => {
    if (stopping) return endGrace();
    stopping = true;
    clearInterval(idleCheck);
    // Withdraw first: new callers start a successor while we finish what was sent to us.
    await removeServerInfo(files, process.pid);
    log(`stopping (${reason}); serving ${graceMs} ms more`);
    await new Promise<void>((resolve) => {
      endGrace = resolve;
      setTimeout(resolve, graceMs);
    });
    const reaper = setInterval(() => server.closeIdleConnections(), 100);
    await new Promise<void>((resolve) =>
      server.close((error?: Error) => {
        if (error) log(`close: ${errorMessage(error)}`);
        resolve();
      }),
    );
    clearInterval(reaper);
    log("stopped; database closed");
    process.exit(0);
  };
  const idleCheck = setInterval(
    () => {
      if (inFlight === 0 && Date.now() - lastActivity >= settings.idleMs) void stop("idle", settings.graceMs);
    },
    Math.max(20, Math.min(1_000, settings.idleMs / 4)),
  );
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => void stop(signal, 0));
}
