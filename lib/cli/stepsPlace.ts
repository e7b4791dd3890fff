import { errorMessage } from "../core/errors.ts";
import { deploymentRegion } from "../runtime/aws/deploymentRegion.ts";
import { NAMES } from "../runtime/config.ts";
import type { RunlogConfig } from "../runtime/readConfig.ts";
import type { ServeDeployment } from "./serveTarget.ts";
import { UsageError } from "./usage.ts";

/**
 * The commands that execute model and tool steps (or start executions that do): with a deployed
 * table they start its state machine instead, as the deployed API and Resume functions do.
 */
const EXECUTING = new Set([
  "run",
  "resume",
  "send",
  "fork",
  "approve",
  "reject",
  "sweep",
  "redrive",
  "serve",
]);

/** The flag that executes a deployed run's steps in this process anyway. */
export const RUN_HERE = { "run-here": { type: "boolean", default: false } } as const;

/** The options an executing command takes beyond its own: --run-here; none for the others. */
export const stepsOptions = (command: string) => (EXECUTING.has(command) ? RUN_HERE : {});

/**
 * Where a command's steps execute: in this process (the local store, a DynamoDB-compatible
 * server at an endpoint, or a deployed table with --run-here), or on the deployment
 * (the table variable naming a table on AWS, with the state machine variable), whose functions run them.
 */
export type StepsPlace = { kind: "here" } | { kind: "deployment"; deployment: ServeDeployment };

/**
 * The one choice of where steps run. A deployed table without its state machine is refused
 * (exit 2) unless --run-here says to run its model and tools on this machine: a laptop must not
 * run a production run's tools, with its own credentials and network, by default.
 */
export function stepsPlace(command: string, config: RunlogConfig, runHere: boolean): StepsPlace {
  const { table, stateMachine } = config;
  if (!EXECUTING.has(command) || table === undefined || !isDeployedTable(config) || runHere)
    return { kind: "here" };
  if (stateMachine === undefined) {
    throw new UsageError(
      `${command}: ${NAMES.table}=${table} is a deployed table, whose runs execute in its stack: set ${NAMES.stateMachine} ` +
        `to the stack's StateMachineArn output (\`runlog config from-stack <StackName>\` writes both), ` +
        `or pass --run-here to execute this run's model and tool steps in this process`,
    );
  }
  let region: string;
  try {
    region = deploymentRegion(stateMachine);
  } catch (error) {
    throw new UsageError(`${command}: ${NAMES.stateMachine}: ${errorMessage(error)}`, { cause: error });
  }
  return { kind: "deployment", deployment: { tableName: table, stateMachineArn: stateMachine, region } };
}

/** Whether the configuration names a deployed table on AWS (a table on an endpoint is a DynamoDB-compatible server on request, a store like SQLite). */
export const isDeployedTable = (config: Pick<RunlogConfig, "table" | "dynamodbEndpoint">): boolean =>
  config.table !== undefined && config.dynamodbEndpoint === undefined;
