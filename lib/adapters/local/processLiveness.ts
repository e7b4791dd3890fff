import { readlinkSync } from "node:fs";
import { hostname } from "node:os";

const HOST = hostname();

/**
 * This process's PID namespace (Linux: the inode /proc/self/ns/pid names), empty where there is
 * none to read. Two containers sharing a data dir may share a host name (host networking) and a
 * pid number, each in its own namespace: a pid is only checked within the namespace it is from.
 */
function pidNamespace(): string {
  try {
    return /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1] ?? "";
  } catch {
    return "";
  }
}

/** Where this process's pids mean something: the host, and its PID namespace when it has one. */
const PLACE = ((ns) => (ns === "" ? HOST : `${HOST}/${ns}`))(pidNamespace());

/**
 * Whether an owner's pid can be checked here: written in this PID namespace, or (by an older
 * runlog, which wrote the host alone) on this host. Any other place's pid says nothing here.
 */
const checkableHere = (place: string) => place === PLACE || place === HOST;
/**
 * Owners of this process: `named` (claimed, its execution about to begin), `executing`, or
 * `ended` (it ran here and stopped). Named and executing owners are alive.
 */
const owners = new Map<string, "named" | "executing" | "ended">();
/** When each owner still only named was named (epoch ms). */
const namedAt = new Map<string, number>();
/** Ended owners remembered, oldest first, so a long-lived server's memory stays bounded. */
const ended: string[] = [];
const MAX_ENDED = 10_000;
const OWNER = /^local:(.+):(\d+):([^:]+)$/;

/**
 * A lease owner naming this host (and PID namespace), this process and one execution in it. node:crypto is loaded on
 * the first call (the same module the run's other ids use), so a process that only reads runs
 * (the CLI's reads) loads no crypto.
 */
export function localOwner(): string {
  const { randomUUID } = process.getBuiltinModule("node:crypto");
  return `local:${PLACE}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/** The owner was named for an execution that is about to begin here. */
export function markNamed(owner: string): void {
  if (owners.has(owner)) return;
  owners.set(owner, "named");
  namedAt.set(owner, Date.now());
}

/** The owner's execution runs here now (or is queued to run next in this process). */
export function markExecuting(owner: string): void {
  owners.set(owner, "executing");
  namedAt.delete(owner);
}

/** The owner's execution ran here and stopped: it will not run again under that name. */
export function markEnded(owner: string): void {
  owners.set(owner, "ended");
  namedAt.delete(owner);
  ended.push(owner);
  if (ended.length > MAX_ENDED) owners.delete(ended.shift()!);
}

/** The owner was named for an execution that never began (a handoff that did not happen). */
export function forgetOwner(owner: string): void {
  if (owners.get(owner) !== "named") return;
  owners.delete(owner);
  namedAt.delete(owner);
}

/**
 * Whether a local lease owner still runs: in this process, it is named or executing;
 * elsewhere on this host (in this PID namespace), its process exists. Owners this process cannot
 * check (another host, another container's namespace, an AWS execution) count as alive, so their
 * lease time decides.
 */
export function isLocalOwnerAlive(owner: string): boolean {
  const match = OWNER.exec(owner);
  if (!match || !checkableHere(match[1]!)) return true;
  if (Number(match[2]) === process.pid) {
    const state = owners.get(owner);
    return state === "named" || state === "executing";
  }
  return processExists(Number(match[2]));
}

/**
 * What became of a local owner's execution: `running` while it executes here, or was named here
 * less than `namedForMs` ago (its claimer is about to execute it), or its process on this host lives
 * (or when this host cannot tell: another host's owner); `ended` once it ran here and stopped;
 * `none` when its process is gone, and for owners that are not local executions at all.
 */
export function localExecutionOf(
  owner: string,
  namedForMs = Number.POSITIVE_INFINITY,
): "none" | "running" | "ended" {
  const match = OWNER.exec(owner);
  if (!match) return "none";
  if (!checkableHere(match[1]!)) return "running";
  if (Number(match[2]) !== process.pid) return processExists(Number(match[2])) ? "running" : "none";
  const state = owners.get(owner);
  if (state === "executing") return "running";
  // Named, its claimer is about to execute it; named longer ago than that takes, its claimer
  // failed before executing (a store error after the claim) and nothing will run it.
  if (state === "named") return Date.now() - (namedAt.get(owner) ?? 0) < namedForMs ? "running" : "none";
  return state === "ended" ? "ended" : "none";
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EPERM") return true;
    if (code === "ESRCH") return false;
    // Anything else is not an answer about the process: say so rather than guess.
    throw error;
  }
}
