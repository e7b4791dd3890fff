/**
 * What one CLI command is (its flags, its arguments, what it does) and the readers of flag values
 * and text arguments that the command groups (startCommands.ts, readCommands.ts, steerCommands.ts,
 * upkeepCommands.ts) share.
 */
import type { CommandContext } from "./commands.ts";
import { readInput } from "./input.ts";
import type { CliRuns, ReadRuns } from "./runs.ts";
import type { Values } from "./settingsFlags.ts";
import { UsageError } from "./usage.ts";

/** One CLI command: its own flags, how many arguments it takes, and what it does with the runs. */
export interface Command<Runs extends ReadRuns = CliRuns> {
  options: Record<string, { type: "string" | "boolean"; default?: string | boolean; multiple?: boolean }>;
  positionals: { min: number; max: number; names: string };
  /** It starts runs, so it creates a data dir that does not exist yet; other commands find no runs there. */
  creates?: boolean;
  /**
   * Its answer when the data dir does not exist (no store is opened, nothing is created).
   * @default "run <first argument> not found", for a command about one run
   */
  withoutRuns?(context: Omit<CommandContext<Runs>, "runs">): number;
  run(context: CommandContext<Runs>, values: Values, positionals: string[]): Promise<number>;
  /** Whether it only reads runs: see ReadCommand. */
  readsOnly?: false;
}

/**
 * A command that only reads runs: on this machine main.ts opens the store alone for it
 * (openLocalReads), not the runtime that executes runs.
 */
export interface ReadCommand extends Omit<Command<ReadRuns>, "readsOnly"> {
  readsOnly: true;
}

export const one = (names: string) => ({ min: 1, max: 1, names });
export const str = (values: Values, key: string) =>
  typeof values[key] === "string" ? (values[key] as string) : undefined;
export const optional = <K extends string>(key: K, value: string | undefined) =>
  value === undefined ? {} : { [key]: value };

/** The text a command takes as its argument, `-` (stdin) or --input-file. */
export const input = (what: string, values: Values, argument: string | undefined) =>
  readInput({ what, argument, file: str(values, "input-file") });

/** The same, where it is required: the usage error names the three ways to give it. */
export async function requiredInput(
  command: string,
  what: string,
  values: Values,
  argument: string | undefined,
) {
  const text = await input(what, values, argument);
  if (text === undefined)
    throw new UsageError(
      `${command}: expected one "${what}" (or - to read it from stdin, or --input-file PATH)`,
    );
  return text;
}

export const MODEL = { model: { type: "string" } } as const;
