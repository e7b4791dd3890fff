import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { errorMessage } from "../core/errors.ts";
import { deploymentEnvFile, deploymentOf, type StackOutputs } from "../runtime/deploymentOutputs.ts";
import type { RunlogConfig } from "../runtime/readConfig.ts";
import { parseFlags } from "./flags.ts";
import { commandHelp } from "./help.ts";
import type { Io } from "./io.ts";
import { EXIT, UsageError } from "./usage.ts";

/** `config from-stack`'s flags (its help, in help.ts, names each). */
export const CONFIG_OPTIONS = {
  region: { type: "string" },
  "outputs-file": { type: "string" },
  prefix: { type: "string" },
  out: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

/**
 * `runlog config from-stack <StackName>`: the CLI's configuration for a deployed stack, from its
 * outputs (CloudFormation's, with your credentials, or a saved `cdk deploy --outputs-file`), as
 * an env file on stdout or in --out.
 */
export async function configCommand(args: string[], io: Io, config: RunlogConfig): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === "--help" || sub === "-h") {
    io.out(commandHelp("config"));
    return sub === undefined ? EXIT.usage : EXIT.completed;
  }
  if (sub !== "from-stack")
    throw new UsageError(`config: unknown subcommand ${JSON.stringify(sub)}; expected from-stack`);
  const { values, positionals } = parseFlags(
    "config from-stack",
    { args: rest, options: CONFIG_OPTIONS, strict: true, allowPositionals: true },
    { min: 1, max: 1, names: "the stack's name" },
    "config",
  );
  if (values.help) {
    io.out(commandHelp("config"));
    return EXIT.completed;
  }
  const stack = positionals[0]!;
  const file = values["outputs-file"];
  if (file !== undefined && values.region !== undefined)
    throw new UsageError("config from-stack: --region is for reading the stack from AWS, not --outputs-file");
  const outputs =
    file === undefined
      ? await (await import("../runtime/aws/stackOutputs.ts")).describeStackOutputs(
          stack,
          values.region ?? config.awsRegion ?? config.awsDefaultRegion,
        )
      : await outputsInFile(file, stack);
  let text: string;
  try {
    text = deploymentEnvFile(deploymentOf(outputs, values.prefix), stack);
  } catch (error) {
    throw new UsageError(`config from-stack: ${stack}: ${errorMessage(error)}`, { cause: error });
  }
  if (values.out === undefined) {
    io.lines(text.trimEnd().split("\n"));
  } else {
    await writeFile(resolve(values.out), text);
    io.err(`wrote ${values.out}: load it with \`set -a; . ${values.out}; set +a\` or node --env-file`);
  }
  return EXIT.completed;
}

/** One stack's outputs from `cdk deploy --outputs-file FILE` ({ "<stack>": { "<key>": "<value>" } }). */
async function outputsInFile(file: string, stack: string): Promise<StackOutputs> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(resolve(file), "utf8"));
  } catch (error) {
    throw new UsageError(`config from-stack: --outputs-file ${file}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  const isRecord = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value);
  if (!isRecord(parsed))
    throw new UsageError(
      `config from-stack: --outputs-file ${file} is not cdk's outputs file (an object by stack)`,
    );
  const outputs = parsed[stack];
  if (!isRecord(outputs)) {
    const stacks = Object.keys(parsed);
    throw new UsageError(
      `config from-stack: --outputs-file ${file} has no stack ${JSON.stringify(stack)}; it has ${stacks.length === 0 ? "none" : stacks.join(", ")}`,
    );
  }
  return Object.fromEntries(
    Object.entries(outputs).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}
