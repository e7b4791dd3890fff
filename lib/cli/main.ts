import { type LocalRunlog, openLocal } from "../api/local.ts";
import { errorMessage } from "../core/errors.ts";
import {
  type CommandContext,
  listCommand,
  resumeCommand,
  resumePointCommand,
  runCommand,
  showCommand,
} from "./commands.ts";
import { demoCommand } from "./demo.ts";
import { progressLine } from "./format.ts";
import { type Io, processIo } from "./io.ts";
import { COMMON, EXIT, exitCodeFor, HELP, parseCommand, UsageError } from "./usage.ts";

const MODEL = { model: { type: "string" } } as const;
const config = <O extends object>(args: string[], options: O) =>
  ({ args, options: { ...COMMON, ...options }, allowPositionals: true, strict: true }) as const;

/** Run one CLI command and return its exit code. */
export async function main(
  argv: string[],
  io: Io = processIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const [command, ...args] = argv;
  let local: LocalRunlog | undefined;
  try {
    if (command === undefined || command === "help" || command === "--help" || command === "-h") {
      io.out(HELP);
      return command === undefined ? EXIT.usage : EXIT.completed;
    }
    const open = async (dir: string | undefined, json: boolean): Promise<CommandContext> => {
      const progress = json ? io.err : io.out;
      local = await openLocal({
        env,
        ...(dir === undefined ? {} : { dataDir: dir }),
        observer: { appended: (runId, event) => progress(progressLine(runId, event)) },
      });
      return { local, io, json };
    };
    switch (command) {
      case "run": {
        const { values, positionals } = parseCommand(
          command,
          config(args, {
            agent: { type: "string", default: "demo" },
            "run-id": { type: "string" },
            ...MODEL,
          } as const),
          { min: 1, max: 1, names: 'one "prompt"' },
        );
        if (values.help) return help(io);
        const request = {
          agent: values.agent,
          input: positionals[0]!,
          ...(values.model === undefined ? {} : { model: values.model }),
          ...(values["run-id"] === undefined ? {} : { runId: values["run-id"] }),
        };
        return await runCommand(await open(values.dir, values.json), request);
      }
      case "resume": {
        const { values, positionals } = parseCommand(command, config(args, MODEL), {
          min: 1,
          max: 1,
          names: "<runId>",
        });
        if (values.help) return help(io);
        const request = {
          runId: positionals[0]!,
          ...(values.model === undefined ? {} : { model: values.model }),
        };
        return await resumeCommand(await open(values.dir, values.json), request);
      }
      case "resume-point":
      case "show": {
        const { values, positionals } = parseCommand(command, config(args, {}), {
          min: 1,
          max: 1,
          names: "<runId>",
        });
        if (values.help) return help(io);
        const context = await open(values.dir, values.json);
        return command === "show"
          ? await showCommand(context, positionals[0]!)
          : await resumePointCommand(context, positionals[0]!);
      }
      case "ls": {
        const { values } = parseCommand(command, config(args, {}), { min: 0, max: 0, names: "no arguments" });
        if (values.help) return help(io);
        return await listCommand(await open(values.dir, values.json));
      }
      case "demo": {
        const { values } = parseCommand(command, config(args, {}), { min: 0, max: 0, names: "no arguments" });
        if (values.help) return help(io);
        return await demoCommand({ io, env, ...(values.dir === undefined ? {} : { dir: values.dir }) });
      }
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}; run "runlog help"`);
    }
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
