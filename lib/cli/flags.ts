/**
 * A command's flags as the user typed them: parsed strictly, with a flag the command does not take
 * refused by name (and the command's usage), and the list of flags given, which failure.ts uses
 * to name the flag behind an input the library refuses.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { COMMAND_HELP } from "./help.ts";
import { BASE, COMMON, parseCommand, REMOTE, UsageError } from "./usage.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** A flag the command does not take: `name` is the flag as typed (`--max-turns`). */
export class UnknownFlagError extends UsageError {
  constructor(
    readonly command: string,
    readonly flag: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * parseCommand, after refusing any flag the command does not take: Node's own message for one
 * ("Unknown option … place it at the end after '--'") advises a positional argument, which is
 * rarely what was meant. `usage` is the COMMAND_HELP entry to show. @default command
 */
export function parseFlags<T extends ParseArgsConfig & { args: string[]; options: Options }>(
  command: string,
  config: T,
  positionals: { min: number; max: number; names: string },
  usage: string = command,
): ReturnType<typeof parseArgs<T>> {
  refuseUnknownFlags(command, config.args, config.options, usage);
  return parseCommand(command, config, positionals);
}

/** A command's flags, as `--name` (and `-x` for a short one), its own before the shared ones. */
function flagNames(options: Options): { own: string[]; shared: string[] } {
  const shared = new Set<string>([...Object.keys(COMMON), ...Object.keys(REMOTE)]);
  const names = Object.keys(options).map((name) => `--${name}`);
  return {
    own: names.filter((name) => !shared.has(name.slice(2))),
    shared: names.filter((name) => shared.has(name.slice(2))),
  };
}

function refuseUnknownFlags(command: string, args: string[], options: Options, usage: string): void {
  const { tokens } = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind !== "option" || Object.hasOwn(options, token.name)) continue;
    const { own, shared } = flagNames(options);
    const takes = own.length === 0 ? "no flags of its own" : own.join(", ");
    const lines = Object.hasOwn(COMMAND_HELP, usage) ? COMMAND_HELP[usage] : undefined;
    throw new UnknownFlagError(
      command,
      token.rawName,
      `${command} takes no ${token.rawName}; it takes ${takes}${shared.length === 0 ? "" : ` (and ${shared.join(", ")})`}${lines === undefined ? "" : `\nusage:\n${lines}`}`,
    );
  }
}

/**
 * The flags a command line gives, as `--name` (a short one as its long name), in order, once
 * each; what follows `--` is no flag. Tells failure.ts which of several flags to name.
 */
export function givenFlags(args: readonly string[], options: Options = BASE): string[] {
  const end = args.indexOf("--");
  const shorts = new Map<string, string>(
    Object.entries(options).flatMap(([name, option]) =>
      option.short === undefined ? [] : [[`-${option.short}`, `--${name}`] as const],
    ),
  );
  const flags = (end < 0 ? args : args.slice(0, end))
    .filter((arg) => arg.startsWith("-") && arg !== "-")
    .map((arg) => arg.split("=")[0] ?? arg)
    .map((arg) => shorts.get(arg) ?? arg);
  return [...new Set(flags)];
}
