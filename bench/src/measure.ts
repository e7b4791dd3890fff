import { closeSync, fsyncSync, openSync, readdirSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";

// Captured at load: a test runner that fakes timers (the AWS one does) must not fake our clock.
const realHrtime = process.hrtime.bigint.bind(process.hrtime);
const origin = realHrtime();

/** Milliseconds on a monotonic clock that no fake timer replaces. */
export const now = (): number => Number(realHrtime() - origin) / 1e6;

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Differences between consecutive marks, starting from `start`. */
export function gaps(start: number, marks: readonly number[]): number[] {
  return marks.map((t, i) => t - (i === 0 ? start : marks[i - 1]!));
}

/** Total size of the regular files under a path (a file or a directory). */
export function sizeOnDisk(path: string): number {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (stat.isFile()) return stat.size;
  if (!stat.isDirectory()) return 0;
  return readdirSync(path).reduce((sum, name) => sum + sizeOnDisk(join(path, name)), 0);
}

/** Write a whole file and fsync it before returning: what "saved durably" means for a state file. */
export function writeDurably(path: string, text: string): number {
  const fd = openSync(path, "w");
  try {
    const buffer = Buffer.from(text, "utf8");
    writeSync(fd, buffer);
    fsyncSync(fd);
    return buffer.length;
  } finally {
    closeSync(fd);
  }
}

/** This process's peak resident set so far, in KB. */
export const maxRssKb = (): number => process.resourceUsage().maxRSS;

/**
 * Report and die at once (exit 137, as a kill would), right where the N-th turn became durable:
 * the run is left interrupted for the resume measurement. The report is written synchronously.
 */
export function reportAndDie(report: object): never {
  writeSync(1, `${JSON.stringify(report)}\n`);
  process.exit(137);
}
