import { appendFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where the reliability suites write what they measured, one JSON line per suite. */
export const TALLY_FILE = join(
  process.env.RUNLOG_RELIABILITY_TALLY_DIR ?? join(tmpdir(), "runlog-reliability"),
  "tally.jsonl",
);

/** Record (and print) the counts a suite measured, so RELIABILITY.md reports only what ran. */
export function tally(suite: string, counts: Record<string, number>): void {
  mkdirSync(join(TALLY_FILE, ".."), { recursive: true });
  appendFileSync(TALLY_FILE, `${JSON.stringify({ suite, at: new Date().toISOString(), ...counts })}\n`);
  const shown = Object.entries(counts).map(([name, value]) => `${name}=${value}`);
  console.log(`[reliability] ${suite}: ${shown.join(" ")}`);
}
