import { join } from "node:path";
import type { Io } from "../../lib/cli/io.ts";
import { type CliResult, ROOT, spawnNode, testEnv } from "../support/cli.ts";

const BIN = join(ROOT, "bin", "runlog.js");

export interface CliOptions {
  /** Appended as `--dir DIR` when given. */
  dir?: string;
  cwd?: string;
  /** Written to the child's stdin, then closed; stdin is /dev/null without it. */
  stdin?: string | Buffer;
  env?: Record<string, string>;
}

/** Run the real `runlog` binary, its output read as bytes (see spawnNode). */
export function cli(args: string[], options: CliOptions = {}): Promise<CliResult & { bytes: Buffer }> {
  return spawnNode([BIN, ...args, ...(options.dir === undefined ? [] : ["--dir", options.dir])], {
    env: testEnv(options.env),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
  });
}

/**
 * An Io that keeps what a command prints in memory: its stdout lines (JSON as JSON.stringify
 * writes it) and its stderr lines, in order.
 */
export function capturedIo(): { io: Io; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    out: (line) => out.push(line),
    lines: (lines) => out.push(...lines),
    err: (line) => err.push(line),
    json: (value) => out.push(JSON.stringify(value)),
  };
  return { io, out, err };
}
