import { randomUUID } from "node:crypto";
import { hostname } from "node:os";

const HOST = hostname();
/** Owners of executions running in this process right now. */
const active = new Set<string>();

/** A lease owner naming this host, this process and one execution in it. */
export function localOwner(): string {
  return `local:${HOST}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

export function markActive(owner: string, running: boolean): void {
  if (running) active.add(owner);
  else active.delete(owner);
}

/**
 * Whether a local lease owner still runs: in this process, its execution is
 * active; elsewhere on this host, its process exists. Owners this host cannot
 * check (another host, an AWS execution) count as alive, so their lease time decides.
 */
export function isLocalOwnerAlive(owner: string): boolean {
  const match = /^local:(.+):(\d+):([^:]+)$/.exec(owner);
  if (!match || match[1] !== HOST) return true;
  const pid = Number(match[2]);
  if (pid === process.pid) return active.has(owner);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
