/**
 * What a deployed stack tells its clients (the CloudFormation outputs the Runlog construct's
 * addOutputs publishes) and the CLI's configuration made from them: one list of keys for both
 * sides, so the outputs cdk writes are the ones `runlog config from-stack` reads.
 */
import { InvalidInputError } from "../core/errors.ts";
import { deploymentRegion } from "./aws/deploymentRegion.ts";
import { NAMES } from "./config.ts";
import { readConfig } from "./readConfig.ts";

/** The output keys, without the prefix addOutputs may put before each. */
export const OUTPUT_KEYS = {
  apiUrl: "HttpApiUrl",
  tableName: "TableName",
  stateMachineArn: "StateMachineArn",
  eventBusName: "EventBusName",
  eventBusArn: "EventBusArn",
  deadLettersUrl: "DeadLettersUrl",
  region: "Region",
} as const;

export type OutputField = keyof typeof OUTPUT_KEYS;
/** A stack's outputs, by output key (as `cdk deploy --outputs-file` writes them under the stack's name). */
export type StackOutputs = Readonly<Record<string, string>>;

/** The deployment a stack's outputs describe. */
export interface DeploymentOutputs {
  tableName: string;
  stateMachineArn: string;
  region: string;
  apiUrl?: string;
  eventBusName?: string;
}

const REQUIRED: readonly OutputField[] = ["tableName", "stateMachineArn"];

/**
 * The runlog deployment among a stack's outputs: keys `<prefix><key>`. Without a prefix, the one
 * prefix whose TableName output is there (a stack holding two Runlog constructs needs one given).
 */
export function deploymentOf(outputs: StackOutputs, prefix?: string): DeploymentOutputs {
  const found = prefix ?? onlyPrefix(outputs);
  const value = (field: OutputField) => {
    const text = outputs[`${found}${OUTPUT_KEYS[field]}`];
    return typeof text === "string" && text !== "" ? text : undefined;
  };
  for (const field of REQUIRED) {
    if (value(field) === undefined) {
      throw new InvalidInputError(
        `the stack has no ${found}${OUTPUT_KEYS[field]} output: is it a runlog stack, deployed with runlog.addOutputs()?`,
        { field: "outputs" },
      );
    }
  }
  const stateMachineArn = value("stateMachineArn")!;
  const apiUrl = value("apiUrl");
  const eventBusName = value("eventBusName");
  return {
    tableName: value("tableName")!,
    stateMachineArn,
    // The Region output, else the state machine's: the table and the machine of one stack share it.
    region: value("region") ?? deploymentRegion(stateMachineArn),
    ...(apiUrl === undefined ? {} : { apiUrl }),
    ...(eventBusName === undefined ? {} : { eventBusName }),
  };
}

function onlyPrefix(outputs: StackOutputs): string {
  const suffix = OUTPUT_KEYS.tableName;
  const prefixes = Object.keys(outputs)
    .filter((key) => key.endsWith(suffix))
    .map((key) => key.slice(0, -suffix.length));
  if (prefixes.length > 1) {
    throw new InvalidInputError(
      `the stack holds ${prefixes.length} runlog deployments (${prefixes.map((p) => `${p}${suffix}`).join(", ")}): name one with --prefix`,
      { field: "prefix" },
    );
  }
  return prefixes[0] ?? "";
}

/**
 * The CLI's configuration for a deployment, as an env file (KEY=value lines; `set -a; . FILE`, or
 * node's --env-file): the variables of the one configuration schema, checked by it, and what no
 * variable holds yet (the API's URL, the bus) as comments.
 */
export function deploymentEnvFile(deployment: DeploymentOutputs, stack: string): string {
  const variables: Record<string, string> = {
    [NAMES.table]: deployment.tableName,
    [NAMES.stateMachine]: deployment.stateMachineArn,
    [NAMES.awsRegion]: deployment.region,
  };
  // What the CLI would refuse to read is refused here, before it is written.
  readConfig(variables);
  for (const value of Object.values(variables)) {
    if (/[\s"'`$\\#]/.test(value)) {
      throw new InvalidInputError(`the stack's output ${JSON.stringify(value)} cannot be written unquoted`, {
        field: "outputs",
      });
    }
  }
  return [
    `# runlog deployment ${stack} (runlog config from-stack)`,
    ...(deployment.apiUrl === undefined ? [] : [`# HTTP API: ${deployment.apiUrl}`]),
    ...(deployment.eventBusName === undefined ? [] : [`# event bus: ${deployment.eventBusName}`]),
    ...Object.entries(variables).map(([name, value]) => `${name}=${value}`),
    "",
  ].join("\n");
}
