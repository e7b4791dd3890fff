import type { LocalRunlog } from "../api/local.ts";
import { NotFoundError } from "../core/errors.ts";
import { validateRunId } from "../core/ids.ts";
import { NAMES } from "../runtime/config.ts";
import { readConfig } from "../runtime/readConfig.ts";
import { withAgentsHint } from "./agentErrors.ts";
import type { Command, ReadCommand } from "./command.ts";
import { dataDir } from "./dataDir.ts";
import { type FailedCommand, printFailure } from "./failure.ts";
import { givenFlags, parseFlags } from "./flags.ts";
import { commandHelp, HELP, hasHelp } from "./help.ts";
import { type Io, processIo } from "./io.ts";
import { BASE, COMMON, EXIT, exitCodeFor, REMOTE, UsageError } from "./usage.ts";
import { runlogVersion } from "./version.ts";

/**
 * Run one CLI command and return its exit code. Every error is printed here,
 * once, as `runlog: <message>`; messages themselves carry no prefix.
 *
 * Only what every command needs is imported up front: the store, the state
 * machine, the model SDKs and the HTTP server load when a command uses them,
 * so `runlog --help` and `runlog ls` start in a fraction of the time.
 *
 * The CLI's composition root: the configuration is read from `env` here, once, for every command
 * but help and version, and passed down as values.
 */
export async function main(
  argv: string[],
  io: Io = processIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const [name, ...args] = argv;
  let local: LocalRunlog | undefined;
  // Known once the command's flags are parsed: a failure then prints its error as JSON too.
  let json = false;
  // The command line a failure names its flags from, and the agents module served, once known.
  const failed: FailedCommand & { module?: string } = { flags: givenFlags(args) };
  if (name !== undefined) failed.command = name;
  try {
    if (name === undefined || name === "help" || name === "--help" || name === "-h") {
      // `runlog help ls` is `runlog ls --help`.
      const topic = name === "help" ? args[0] : undefined;
      if (topic?.startsWith("-") && topic !== "-")
        throw new UsageError(`help takes no ${topic}; it takes the name of a command: runlog help ls`);
      if (topic !== undefined && !hasHelp(topic))
        throw new UsageError(`help: unknown command ${JSON.stringify(topic)}; run "runlog help"`);
      io.out(topic !== undefined && topic !== "help" ? commandHelp(topic) : HELP);
      return name === undefined ? EXIT.usage : EXIT.completed;
    }
    if (name === "version" || name === "--version" || name === "-v") {
      const { values } = parseFlags(
        "version",
        { args, options: { help: BASE.help }, strict: true, allowPositionals: true },
        { min: 0, max: 0, names: "no arguments" },
        "version",
      );
      if (values.help) return help(io, "version");
      io.out(await runlogVersion());
      return EXIT.completed;
    }
    const config = readConfig(env, { warn: (message) => io.err(`runlog: ${message}`) });
    // Before any flag is parsed: a command that parses its own (replay …), or flags that do not
    // parse, still fail as JSON when --json was asked for.
    json = asksJson(args);
    if (name === "demo") {
      const { RUN_HERE, isDeployedTable } = await import("./stepsPlace.ts");
      const { values } = parseFlags(
        name,
        { args, options: { ...BASE, ...RUN_HERE }, strict: true, allowPositionals: true },
        { min: 0, max: 0, names: "no arguments" },
      );
      if (values.help) return help(io, name);
      if (isDeployedTable(config) && !values["run-here"])
        throw new UsageError(
          `demo runs its steps on this machine, and ${NAMES.table} names a deployed table: unset it, or pass --run-here to run the demo against that table`,
        );
      if (values.agents !== undefined)
        throw new UsageError("demo runs the built-in demo agent; --agents is for the other commands");
      const dir = await dataDir(values.dir, config.dataDir, { create: true });
      const { demoCommand } = await import("./demo.ts");
      return await demoCommand({ io, env, config, dir: dir.path });
    }
    if (name === "config") {
      const { configCommand } = await import("./configCommand.ts");
      return await configCommand(args, io, config);
    }
    if (name === "replay") {
      const { replayCommand } = await import("./replay.ts");
      return await replayCommand(args, io, config);
    }
    if (name === "serve") {
      const { serveCommand } = await import("./serve.ts");
      return await serveCommand(args, io, config);
    }
    // Loaded side by side: each is a chunk of its own, and one after the other they wait in turn.
    const [{ COMMANDS }, { stepsOptions, stepsPlace }] = await Promise.all([
      import("./commandTable.ts"),
      import("./stepsPlace.ts"),
    ]);
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}; run "runlog help"`);
    const parsing = {
      args,
      options: { ...COMMON, ...REMOTE, ...command.options, ...stepsOptions(name) },
      allowPositionals: true,
      strict: true,
    } as const;
    const { values, positionals } = parseFlags(name, parsing, command.positionals);
    if (values.help) return help(io, name);
    json = values.json === true;
    const progress = json ? io.err : io.out;
    const url = (values.url as string | undefined) ?? config.url;
    if (url !== undefined) {
      const { remoteContext } = await import("./remoteContext.ts");
      const context = await remoteContext({ url, values, config, io, json, progress });
      return await command.run(context, values, positionals);
    }
    if (values.token !== undefined)
      throw new UsageError(`${name}: --token is for an API named by --url (or ${NAMES.url})`);
    const place = stepsPlace(name, config, (values as Record<string, unknown>)["run-here"] === true);
    const dir = await dataDir(typeof values.dir === "string" ? values.dir : undefined, config.dataDir, {
      // A run started on a deployment is stored there: nothing here to create.
      create: command.creates === true && place.kind === "here",
    });
    const [{ agentsOption }, { dynamoTarget }] = await Promise.all([
      import("./agentsModule.ts"),
      import("../runtime/store.ts"),
    ]);
    const agentsPath = typeof values.agents === "string" ? values.agents : config.agents;
    const module = await agentsOption(
      typeof values.agents === "string" ? values.agents : undefined,
      config.agents,
    );
    if (module !== undefined && agentsPath !== undefined) failed.module = agentsPath;
    if (place.kind === "deployment") {
      const { openServeDeployment } = await import("./serveTarget.ts");
      const target = await openServeDeployment(place.deployment, module, {
        command: name,
        table: NAMES.table,
        stateMachine: NAMES.stateMachine,
      });
      try {
        const { localRuns } = await import("./runs.ts");
        const runs = localRuns(target.runlog);
        const context = { runs, io, json, where: target.where, deployment: target.where };
        return await command.run(context, values, positionals);
      } finally {
        await target.close();
      }
    }
    // Where messages say the runs are: the data dir, or the DynamoDB table the store opens instead.
    const dynamo = dynamoTarget(config) !== undefined;
    if (!dir.exists && !dynamo) return await withoutRuns(command, { io, json, where: dir.path }, positionals);
    if (command.readsOnly) {
      // A read opens the store alone: no state machine, model adapter or lifecycle delivery loads.
      const [{ openLocalReads }, { localReads }] = await Promise.all([
        import("../api/localReads.ts"),
        import("./runs.ts"),
      ]);
      const opened = await openLocalReads(
        { dataDir: dir.path, ...(module === undefined ? {} : { agents: module.agents }) },
        config,
      );
      try {
        return await command.run(
          { runs: localReads(opened.reads), io, json, where: dynamo ? opened.where : dir.path },
          values,
          positionals,
        );
      } finally {
        await opened.close();
      }
    }
    const [{ openLocal }, { progressLine }] = await Promise.all([
      import("../api/local.ts"),
      import("./format.ts"),
    ]);
    local = await openLocal(
      {
        dataDir: dir.path,
        ...(module === undefined ? {} : { agents: module.agents }),
        ...(module?.models === undefined ? {} : { models: module.models }),
        ...(module?.prices === undefined ? {} : { prices: module.prices }),
        observer: { appended: (runId, event) => progress(progressLine(runId, event)) },
      },
      config,
    );
    const { localRuns } = await import("./runs.ts");
    return await command.run(
      { runs: localRuns(local.runlog), io, json, where: dynamo ? local.where : dir.path },
      values,
      positionals,
    );
  } catch (error) {
    const failure =
      name === undefined
        ? error
        : withAgentsHint(error, { ...failed, command: name, flags: failed.flags ?? [] });
    printFailure(io, failure, json, failed);
    return exitCodeFor(failure);
  } finally {
    await (local as LocalRunlog | undefined)?.close();
  }
}

/** Whether the arguments ask for JSON: `--json` among the flags (before a `--`). */
function asksJson(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).includes("--json");
}

/** A command's answer on a data dir that does not exist: it holds no runs. */
async function withoutRuns(
  command: Command | ReadCommand,
  context: { io: Io; json: boolean; where: string },
  [runId]: string[],
): Promise<number> {
  if (command.withoutRuns) return command.withoutRuns(context);
  const id = validateRunId(runId ?? "");
  throw new NotFoundError(`run ${id} not found`, { runId: id });
}

/** A command's own help (its usage only). */
function help(io: Io, command: string): number {
  io.out(commandHelp(command));
  return EXIT.completed;
}
