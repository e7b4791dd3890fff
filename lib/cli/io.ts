import { forTerminal } from "./terminal.ts";

/** Where a command writes: stdout for results, stderr for progress when stdout carries JSON. */
export interface Io {
  /** A line for a person, on stdout: control characters in it are shown, never obeyed. */
  out(line: string): void;
  /**
   * Lines for a person, on stdout, each shown as `out` shows it, in one write: a table or a log.
   * `show` prints a line an event, 3,004 for a 1,000-turn run; written one by one to a pipe they
   * made the whole command 6-11 % slower.
   */
  lines(lines: readonly string[]): void;
  /** A line for a person, on stderr, shown as `out` shows it. */
  err(line: string): void;
  /** One JSON document on stdout, exactly as JSON.stringify writes it. */
  json(value: unknown): void;
}

/** A line for a person as a terminal gets it: control characters shown, then its newline. */
const shown = (line: string) => `${forTerminal(line)}\n`;

/** Io on this process's stdout and stderr. */
export const processIo: Io = {
  out: (line) => process.stdout.write(shown(line)),
  lines: (lines) => {
    if (lines.length > 0) process.stdout.write(lines.map(shown).join(""));
  },
  err: (line) => process.stderr.write(shown(line)),
  json: (value) => process.stdout.write(`${JSON.stringify(value)}\n`),
};
