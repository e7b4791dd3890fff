import { forTerminal } from "./terminal.ts";

/** Where a command writes: stdout for results, stderr for progress when stdout carries JSON. */
export interface Io {
  /** A line for a person, on stdout: control characters in it are shown, never obeyed. */
  out(line: string): void;
  /** A line for a person, on stderr, shown as `out` shows it. */
  err(line: string): void;
  /** One JSON document on stdout, exactly as JSON.stringify writes it. */
  json(value: unknown): void;
}

/** Io on this process's stdout and stderr. */
export const processIo: Io = {
  out: (line) => process.stdout.write(`${forTerminal(line)}\n`),
  err: (line) => process.stderr.write(`${forTerminal(line)}\n`),
  json: (value) => process.stdout.write(`${JSON.stringify(value)}\n`),
};
