import { readFileSync } from "node:fs";
import { readFile, rename, unlink, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { answers } from "./probe.ts";

/** Everything the embedded server keeps under one data dir. */
export interface ServerFiles {
  dir: string;
  /** Names the live server: {pid, port, startedAt}. */
  info: string;
  /** Held (created with `wx`) by the one process that is starting a server. */
  lock: string;
  log: string;
  db: string;
}

export interface ServerInfo {
  pid: number;
  port: number;
  startedAt: string;
}

/** Absolute paths, so a detached server and its clients agree whatever their working directories. */
export function serverFiles(dataDir: string): ServerFiles {
  const dir = resolve(dataDir);
  return {
    dir,
    info: join(dir, "server.json"),
    lock: join(dir, "server.lock"),
    log: join(dir, "server.log"),
    db: join(dir, "db"),
  };
}

/** Whether a process exists and is not a zombie (an unreaped orphan still answers kill 0). */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true; // no procfs (macOS): kill 0 is all we have
  }
}

/** What server.json says, or undefined when it is missing or unreadable. */
export async function readServerInfo(files: ServerFiles): Promise<ServerInfo | undefined> {
  try {
    const info = JSON.parse(await readFile(files.info, "utf8")) as Partial<ServerInfo>;
    if (typeof info.pid === "number" && typeof info.port === "number") {
      return { pid: info.pid, port: info.port, startedAt: String(info.startedAt ?? "") };
    }
  } catch {
    // missing, or half-written by a writer without rename: treat as no server
  }
  return undefined;
}

/** Written via tmp + rename so a reader never sees half a file. */
export async function writeServerInfo(files: ServerFiles, info: ServerInfo): Promise<void> {
  const tmp = `${files.info}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(info));
  await rename(tmp, files.info);
}

/** Remove server.json only if it still names `pid`, so a successor's file is never deleted. */
export async function removeServerInfo(files: ServerFiles, pid: number): Promise<void> {
  if ((await readServerInfo(files))?.pid !== pid) return;
  await unlink(files.info).catch(() => {});
}

/** The server named by server.json if it is really there: its process alive and its port answering. */
export async function liveServer(files: ServerFiles): Promise<ServerInfo | undefined> {
  const info = await readServerInfo(files);
  if (!info || !isAlive(info.pid)) return undefined;
  return (await answers(info.port)) ? info : undefined;
}

/** Wait between polls. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
