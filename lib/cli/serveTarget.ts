import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILT_IN_AGENTS } from "../agents/builtIn.ts";
import { agentRegistry } from "../agents/registry.ts";
import type { LiveFeed } from "../api/liveFeed.ts";
import { Runlog } from "../api/runlog.ts";
import { errorMessage, ModelRejectedError } from "../core/errors.ts";
import type { ModelProviders, ModelResolver } from "../ports/model.ts";
import { deploymentRegion } from "../runtime/aws/deploymentRegion.ts";
import { checkModelSpec } from "../runtime/models.ts";
import type { AgentsModule } from "./agentsModule.ts";
import { UsageError } from "./usage.ts";

/** `runlog serve`'s options that point it at a deployed stack instead of this machine. */
export const DEPLOYMENT_OPTIONS = {
  table: { type: "string" },
  "state-machine": { type: "string" },
  region: { type: "string" },
} as const;

/** A deployed stack to serve, from `--table NAME --state-machine ARN [--region R]`. */
export interface ServeDeployment {
  tableName: string;
  stateMachineArn: string;
  region: string;
}

/** What `runlog serve` serves: the library API over some store and orchestrator. */
export interface ServeTarget {
  runlog: Runlog;
  where: string;
  /** Events as this process appends them: none for a deployment, whose runs execute on AWS (pages long-poll the table). */
  live?: LiveFeed;
  close(): Promise<void>;
}

interface DeploymentValues {
  table?: string | undefined;
  "state-machine"?: string | undefined;
  region?: string | undefined;
  dir?: string | undefined;
}

/**
 * The options, or, when they name no deployment, the one the configuration names
 * (its state machine with its table, as `runlog config from-stack` writes them).
 */
export function withConfiguredDeployment<V extends DeploymentValues>(
  values: V,
  config: { table?: string | undefined; stateMachine?: string | undefined },
): V {
  if (values.table !== undefined || values["state-machine"] !== undefined) return values;
  if (config.stateMachine === undefined) return values;
  return { ...values, table: config.table, "state-machine": config.stateMachine };
}

/**
 * The deployment the options name, or undefined to serve this machine's runs. Both names are
 * needed; the region is the state machine ARN's unless --region says otherwise (the table and
 * the state machine of one stack share a region).
 */
export function deploymentOf(values: DeploymentValues): ServeDeployment | undefined {
  const { table, "state-machine": stateMachine, region } = values;
  if (table === undefined && stateMachine === undefined) {
    if (region !== undefined) throw new UsageError("serve: --region goes with --table and --state-machine");
    return undefined;
  }
  if (table === undefined || table.trim() === "")
    throw new UsageError("serve: --table NAME is needed with --state-machine (the stack's TableName output)");
  if (stateMachine === undefined)
    throw new UsageError(
      "serve: --state-machine ARN is needed with --table (the stack's StateMachineArn output)",
    );
  if (values.dir !== undefined)
    throw new UsageError(
      "serve: --dir is the local store's; with --table the runs are in the deployed table",
    );
  let arnRegion: string;
  try {
    arnRegion = deploymentRegion(stateMachine);
  } catch (error) {
    throw new UsageError(`serve: --state-machine: ${errorMessage(error)}`, { cause: error });
  }
  if (region !== undefined && region.trim() === "")
    throw new UsageError("serve: --region needs a region name");
  return { tableName: table, stateMachineArn: stateMachine, region: region ?? arnRegion };
}

/**
 * Models named but never called here: the deployment's CallModel function calls them, with the
 * key it holds. Start and fork still check the spec, as the deployed API does.
 */
function namedModels(providers: ModelProviders | undefined): ModelResolver {
  return (spec) => {
    checkModelSpec(spec, providers);
    const refuse = () =>
      Promise.reject(
        new ModelRejectedError(`${spec}: runlog serve --table calls no model; the deployment does`),
      );
    return { spec, call: refuse };
  };
}

/** How errors name the command and the deployment's parts: serve's options, or a command's variables. */
export interface DeploymentNaming {
  command: string;
  table: string;
  stateMachine: string;
}

const SERVE_NAMING: DeploymentNaming = {
  command: "serve",
  table: "--table",
  stateMachine: "--state-machine",
};

/**
 * The library API over a deployed stack: actions start, resume and stop its Step Functions
 * executions, which run the steps in the stack's Lambda functions. Agents are needed only to
 * start a run (its agent and default model) and to say which interrupted calls a resume runs
 * again; give the module the stack was built with (--agents), else the built-in ones.
 */
export async function openServeDeployment(
  deployment: ServeDeployment,
  module: AgentsModule | undefined,
  naming: DeploymentNaming = SERVE_NAMING,
): Promise<ServeTarget> {
  // The AWS SDK loads only here: serving this machine's runs does not pay for it.
  const { DeploymentError, openDeployment } = await import("../runtime/aws/deployment.ts");
  try {
    const { deps, where, close } = await openDeployment({
      ...deployment,
      // No tool runs here (the stack's RunTool function runs them): this dir is never written.
      agents: agentRegistry({ dataDir: join(tmpdir(), "runlog-serve") }, module?.agents ?? BUILT_IN_AGENTS),
      models: namedModels(module?.models),
      ...(module?.prices === undefined ? {} : { prices: module.prices }),
    });
    return { runlog: new Runlog(deps), where, close };
  } catch (error) {
    if (!(error instanceof DeploymentError)) throw error;
    const prefix =
      error.part === "credentials"
        ? naming.command
        : error.part === "table"
          ? `${naming.command}: ${naming.table} ${JSON.stringify(deployment.tableName)}`
          : `${naming.command}: ${naming.stateMachine} ${JSON.stringify(deployment.stateMachineArn)}`;
    throw new UsageError(`${prefix}: ${error.message}`, { cause: error });
  }
}
