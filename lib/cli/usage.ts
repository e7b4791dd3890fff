import { type ParseArgsConfig, parseArgs } from "node:util";
import { IdTakenError, InvalidInputError, ModelRejectedError, NotFoundError } from "../core/errors.ts";

/** Bad command-line usage: exit code 2, with the message saying what was wrong. */
export class UsageError extends InvalidInputError {}

export const EXIT = { completed: 0, failed: 1, usage: 2, paused: 3 } as const;

/**
 * Exit code for an error: 2 when what the caller asked for is wrong and nothing
 * was written (bad usage or input, an unknown run, an unusable data dir, an id
 * the caller chose that names another run, a model that cannot be built here: a
 * command is refused with ModelRejectedError only before it writes, as a model's
 * refusal during a run is recorded and ends the run instead), 1 when the work failed.
 */
export function exitCodeFor(error: unknown): number {
  const callers =
    error instanceof InvalidInputError ||
    error instanceof NotFoundError ||
    error instanceof IdTakenError ||
    error instanceof ModelRejectedError;
  return callers ? EXIT.usage : EXIT.failed;
}

/** Flags every command takes. */
export const BASE = {
  dir: { type: "string" },
  agents: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** The flags of every command whose output has a JSON form (all but demo and serve): BASE and --json. */
export const COMMON = { ...BASE, json: { type: "boolean", default: false } } as const;

/** Flags of the commands that read and steer runs: the API to call instead of a store, and its token. */
export const REMOTE = {
  url: { type: "string" },
  token: { type: "string" },
} as const;

/**
 * Parse one command's flags strictly (an unknown flag or a missing value is a
 * UsageError) and check how many positional arguments it got.
 */
export function parseCommand<T extends ParseArgsConfig>(
  command: string,
  config: T,
  positionals: { min: number; max: number; names: string },
): ReturnType<typeof parseArgs<T>> {
  let parsed: ReturnType<typeof parseArgs<T>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    throw new UsageError(
      `${command}: ${parseArgsProblem(error as Error, config.args ?? process.argv.slice(2))}`,
    );
  }
  const count = parsed.positionals.length;
  const help = (parsed.values as { help?: boolean }).help === true;
  if (!help && (count < positionals.min || count > positionals.max)) {
    throw new UsageError(`${command}: expected ${positionals.names}, got ${count} argument(s)`);
  }
  return parsed;
}

/**
 * What parseArgs found wrong, in one line. A value that starts with a dash (`--max-turns -3`) is
 * taken for an option, and parseArgs says only "argument is ambiguous": this names the value and
 * the spelling that gives it (`--max-turns=-3`).
 */
function parseArgsProblem(error: Error, args: readonly string[]): string {
  const flag = /^Option '(-[^' ]+)' argument is ambiguous/.exec(error.message)?.[1];
  // The flag may be given more than once (--stop): the ambiguous one is followed by a dash.
  const at = args.findIndex((arg, i) => arg === flag && args[i + 1]?.startsWith("-"));
  const value = args[at + 1];
  if (flag === undefined || at === -1 || value === undefined)
    return error.message.split("\n")[0] ?? error.message;
  return `${flag} is followed by ${JSON.stringify(value)}, which reads as an option: write ${flag}=${value} to give it as the value of ${flag}`;
}
