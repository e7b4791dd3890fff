import { spawn } from "node:child_process";
import { join } from "node:path";
import { type CliResult, ROOT, testEnv } from "../support/cli.ts";

const BIN = join(ROOT, "bin", "runlog.js");

export interface CliOptions {
  /** Appended as `--dir DIR` when given. */
  dir?: string;
  cwd?: string;
  /** Written to the child's stdin, then closed; stdin is /dev/null without it. */
  stdin?: string | Buffer;
  env?: Record<string, string>;
}

/**
 * Run the real `runlog` binary with stdout and stderr on pipes (as `| wc -c`
 * would), reading them as bytes so nothing is decoded on the way.
 */
export function cli(args: string[], options: CliOptions = {}): Promise<CliResult & { bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [BIN, ...args, ...(options.dir === undefined ? [] : ["--dir", options.dir])],
      {
        env: testEnv(options.env),
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      },
    );
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => err.push(chunk));
    if (options.stdin !== undefined) child.stdin?.end(options.stdin);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const bytes = Buffer.concat(out);
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: bytes.toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        bytes,
      });
    });
  });
}
