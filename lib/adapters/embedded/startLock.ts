import { readFile, stat, unlink, writeFile } from "node:fs/promises";
import { isAlive, type ServerFiles } from "./serverFiles.ts";

/** A live holder that has not finished starting a server by then has hung; its lock no longer counts. */
const MAX_HOLD_MS = 120_000;
/** Between `wx` creating the file and the pid landing in it, an empty lock is young, not stale. */
const EMPTY_GRACE_MS = 5_000;

/**
 * Try to become the one process that starts the server. False while someone
 * else holds the lock; a lock left by a dead process is removed so the next
 * try can take it.
 */
export async function tryStartLock(files: ServerFiles): Promise<boolean> {
  try {
    await writeFile(files.lock, String(process.pid), { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  await removeIfStale(files);
  return false;
}

async function removeIfStale(files: ServerFiles): Promise<void> {
  let content: string;
  let age: number;
  try {
    content = (await readFile(files.lock, "utf8")).trim();
    age = Date.now() - (await stat(files.lock)).mtimeMs;
  } catch {
    return; // released meanwhile
  }
  const stale = content === "" ? age > EMPTY_GRACE_MS : !isAlive(Number(content)) || age > MAX_HOLD_MS;
  if (!stale) return;
  // Re-read just before removing, to narrow the window in which a fresh lock could be taken for a stale one.
  const again = await readFile(files.lock, "utf8").catch(() => undefined);
  if (again?.trim() === content) await unlink(files.lock).catch(() => {});
}

/** Give the lock back, only if it is still ours. */
export async function releaseStartLock(files: ServerFiles): Promise<void> {
  const content = await readFile(files.lock, "utf8").catch(() => undefined);
  if (content?.trim() === String(process.pid)) await unlink(files.lock).catch(() => {});
}
