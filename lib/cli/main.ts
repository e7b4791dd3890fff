import { type LocalRunlog, openLocal } from "../api/local.ts";
import { errorMessage } from "../core/errors.ts";
import { COMMANDS } from "./commandTable.ts";
import { demoCommand } from "./demo.ts";
import { progressLine } from "./format.ts";
import { type Io, processIo } from "./io.ts";
import { serveCommand } from "./serve.ts";
import { COMMON, EXIT, exitCodeFor, HELP, parseCommand, UsageError } from "./usage.ts";

/** Run one CLI command and return its exit code. */
export async function main(
  argv: string[],
  io: Io = processIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const [name, ...args] = argv;
  let local: LocalRunlog | undefined;
  try {
    if (name === undefined || name === "help" || name === "--help" || name === "-h") {
      io.out(HELP);
      return name === undefined ? EXIT.usage : EXIT.completed;
    }
    if (name === "demo") {
      const { values } = parseCommand(
        name,
        { args, options: COMMON, strict: true, allowPositionals: true },
        {
          min: 0,
          max: 0,
          names: "no arguments",
        },
      );
      if (values.help) return help(io);
      return await demoCommand({ io, env, ...(values.dir === undefined ? {} : { dir: values.dir }) });
    }
    if (name === "serve") return await serveCommand(args, io, env);
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}; run "runlog help"`);
    const config = {
      args,
      options: { ...COMMON, ...command.options },
      allowPositionals: true,
      strict: true,
    } as const;
    const { values, positionals } = parseCommand(name, config, command.positionals);
    if (values.help) return help(io);
    const json = values.json === true;
    const progress = json ? io.err : io.out;
    const dir = typeof values.dir === "string" ? values.dir : undefined;
    local = await openLocal({
      env,
      ...(dir === undefined ? {} : { dataDir: dir }),
      observer: { appended: (runId, event) => progress(progressLine(runId, event)) },
    });
    return await command.run({ local, io, json }, values, positionals);
  } catch (error) {
    io.err(`runlog: ${errorMessage(error)}`);
    const cause = error instanceof Error ? error.cause : undefined;
    if (cause instanceof Error) io.err(`  cause: ${cause.message}`);
    return exitCodeFor(error);
  } finally {
    await (local as LocalRunlog | undefined)?.close();
  }
}

function help(io: Io): number {
  io.out(HELP);
  return EXIT.completed;
}
