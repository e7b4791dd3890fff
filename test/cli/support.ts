import { join } from "node:path";
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
