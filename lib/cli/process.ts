import { main } from "./main.ts";

/**
 * What the `runlog` bin runs: the command, then its exit code set (not forced)
 * once stdout and stderr have drained. A pipe takes 64 KB at once and the rest
 * asynchronously; process.exit() would cut it there and still exit 0.
 */
export async function runCli(argv: string[]): Promise<void> {
  // A reader that went away (`runlog show x | head -1`) is not an error of the command.
  const gone = (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  };
  process.stdout.on("error", gone);
  process.stderr.on("error", gone);
  process.exitCode = await main(argv);
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
}

/** Resolves once everything written to `stream` so far has been handed to the OS. */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => stream.write("", () => resolve()));
}
