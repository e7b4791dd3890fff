import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT, testEnv } from "./cli.ts";

/** A `runlog serve` child process, listening. */
export interface Served {
  child: ChildProcess;
  url: string;
  output: () => string;
  exit: Promise<number | null>;
}

/** Start `runlog serve --port 0 ARGS` as a user runs it, and wait for the line that says where it listens. */
export function serve(args: string[], env: NodeJS.ProcessEnv = testEnv()): Promise<Served> {
  const child = spawn(process.execPath, [join(ROOT, "bin", "runlog.js"), "serve", "--port", "0", ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
      const match = /runlog serve: listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match) resolve({ child, url: match[1]!, output: () => stdout, exit });
    });
    exit.then((code) =>
      reject(new Error(`runlog serve exited ${code} before listening:\n${stdout}\n${stderr}`)),
    );
  });
}

/** Stop a served child: SIGKILL if it has not exited. */
export function stopServed(served: Served | undefined): void {
  const child = served?.child;
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}
