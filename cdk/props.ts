import { existsSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { Duration, type RemovalPolicy, Token } from "aws-cdk-lib";
import type { IEventBus } from "aws-cdk-lib/aws-events";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import type { ISecret } from "aws-cdk-lib/aws-secretsmanager";
import type { ITopic } from "aws-cdk-lib/aws-sns";
import { InvalidInputError } from "../lib/core/errors.ts";
import { type BundlingRoot, FUNCTIONS_DIR } from "./runlogFunction.ts";

/** Where the alarms go. */
export interface RunlogAlarmsProps {
  /** The topic told when an alarm fires and when it clears. @default none: the alarms only show in CloudWatch */
  topic?: ITopic;
}

/** Bounds on how much runs do at once. */
export interface RunlogConcurrency {
  /** Reserved concurrency of each step function (CallModel, RunTool, RecordModelFailure, Finish, Handoff): at most this many of each at once, and as many kept for them. @default none: they share the account's unreserved pool */
  reservedConcurrency?: number;
  /** The most tool calls of one model response that run at once (the RunTools Map's MaxConcurrency), each a RunTool Lambda. @default 10 */
  maxToolCalls?: number;
}

export interface RunlogProps {
  /** The module exporting `agents: Record<string, AgentFactory>`, bundled into every function; absolute or relative to the working directory. */
  agentsModule: string;
  /** The project the functions are bundled from (NodejsFunction's projectRoot; its lockfile is depsLockFilePath). A runlog linked from outside it bundles from its own checkout. @default the nearest directory at or above agentsModule holding package-lock.json, pnpm-lock.yaml, yarn.lock, bun.lock or bun.lockb */
  projectRoot?: string;
  /** The Secrets Manager secret holding the model API key (the secret, or its name or ARN); only CallModel may read it. @default none: only scripted models can be called */
  modelKeySecret?: ISecret | string;
  /** Whole days a run that finished (completed, cancelled, failed…) is kept before DynamoDB's TTL deletes it. @default forever */
  retentionDays?: number;
  /** The bus runlog.StartRun and runlog.ResumeRun events arrive on. @default the account's default bus */
  eventBus?: IEventBus;
  /** How often the sweeper resumes runs whose executor died (whole minutes). @default Duration.minutes(5) */
  sweepEvery?: Duration;
  /**
   * Redrive automatically: after each sweep, the sweeper resumes the runs whose model call failed
   * for a retryable reason (connection, 429, 5xx) and that have been quiet for `after` (at least a
   * minute), at most 3 times in a row for a run that keeps failing. @default off: `runlog redrive` by hand
   */
  redrive?: { after: Duration };
  /** The longest one execution may take; leases last as long, plus 5 minutes. @default Duration.hours(24) */
  executionTimeout?: Duration;
  /** What happens to the runs when this construct is removed. @default RemovalPolicy.RETAIN */
  tableRemovalPolicy?: RemovalPolicy;
  /** CloudWatch alarms on dead letters, failed or timed-out executions, sweep give-ups and each function's errors and throttles; false for none. @default alarms with no action */
  alarms?: RunlogAlarmsProps | false;
  /** A CloudWatch dashboard of executions, steps, the model, resumes, sweeps and the dead-letter queue; false for none. @default true */
  dashboard?: boolean;
  /** Bounds on parallel steps and tool calls. @default no bounds but the account's */
  concurrency?: RunlogConcurrency;
  /** How long the functions', the state machine's and the HTTP API's logs are kept. @default RetentionDays.THREE_MONTHS */
  logRetention?: RetentionDays;
}

/** A Runlog prop that cannot work, named with what was expected. */
export class RunlogPropsError extends InvalidInputError {
  constructor(
    readonly prop: string,
    problem: string,
  ) {
    super(`runlog: ${prop} ${problem}`, { field: prop });
  }
}

/** The lockfiles of the package managers NodejsFunction knows, any of which marks a project's root. */
export const LOCKFILES = ["package-lock.json", "pnpm-lock.yaml", "yarn.lock", "bun.lock", "bun.lockb"];

function lockfileAtOrAbove(start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    const found = LOCKFILES.map((name) => join(dir, name)).find((path) => existsSync(path));
    if (found) return found;
    if (dirname(dir) === dir) return undefined;
  }
}

const isUnder = (path: string, root: string) => {
  const rel = relative(root, path);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
};

/** The agents module as an absolute real path, or a RunlogPropsError saying why not. */
export function agentsModulePath(module: string | undefined): string {
  if (typeof module !== "string" || module === "") {
    throw new RunlogPropsError("agentsModule", "is required: the path of the module exporting `agents`");
  }
  const path = resolve(module);
  if (!existsSync(path)) throw new RunlogPropsError("agentsModule", `${path} does not exist`);
  if (!statSync(path).isFile()) throw new RunlogPropsError("agentsModule", `${path} is not a file`);
  return realpathSync(path);
}

/**
 * Where esbuild runs: the user's project, whose lockfile pins what is bundled and
 * under which an installed runlog's functions lie. A runlog linked from elsewhere
 * (npm link, a file: dependency, this repository's own tests) is bundled from its
 * own checkout, because NodejsFunction only bundles entries under its projectRoot.
 */
export function bundlingRoot(agentsModule: string, projectRoot: string | undefined): BundlingRoot {
  let root: string;
  let lockfile: string | undefined;
  if (projectRoot === undefined) {
    lockfile = lockfileAtOrAbove(dirname(agentsModule));
    if (!lockfile) {
      throw new RunlogPropsError(
        "projectRoot",
        `was not given and no directory at or above ${dirname(agentsModule)} holds a lockfile (${LOCKFILES.join(", ")})`,
      );
    }
    root = dirname(lockfile);
  } else {
    const given = resolve(projectRoot);
    if (!existsSync(given) || !statSync(given).isDirectory()) {
      throw new RunlogPropsError("projectRoot", `${given} is not a directory`);
    }
    root = realpathSync(given);
    lockfile = lockfileAtOrAbove(root);
    if (!lockfile) {
      throw new RunlogPropsError(
        "projectRoot",
        `${root}: no lockfile (${LOCKFILES.join(", ")}) in it or above it`,
      );
    }
  }
  const functions = realpathSync(FUNCTIONS_DIR);
  if (isUnder(functions, root)) return { projectRoot: root, depsLockFilePath: lockfile };
  const own = lockfileAtOrAbove(functions);
  if (!own) {
    throw new RunlogPropsError(
      "projectRoot",
      `${root} does not hold runlog's functions (${functions}): install runlog into the project, or name a projectRoot that holds both`,
    );
  }
  return { projectRoot: dirname(own), depsLockFilePath: own };
}

const positiveInteger = (value: number) =>
  Token.isUnresolved(value) || (Number.isInteger(value) && value > 0);

/** Check the props that a template would accept but a deployment or a run would not. */
export function validateProps(props: RunlogProps): void {
  const { retentionDays, sweepEvery, executionTimeout, concurrency, modelKeySecret, alarms } = props;
  if (retentionDays !== undefined && !positiveInteger(retentionDays)) {
    throw new RunlogPropsError(
      "retentionDays",
      `must be a positive whole number of days, got ${retentionDays}`,
    );
  }
  if (sweepEvery !== undefined && !Token.isUnresolved(sweepEvery.toSeconds())) {
    const seconds = sweepEvery.toSeconds();
    if (seconds < 60 || seconds % 60 !== 0) {
      throw new RunlogPropsError(
        "sweepEvery",
        `must be whole minutes, at least one; got ${sweepEvery.toHumanString()}`,
      );
    }
  }
  const redriveAfter = props.redrive?.after;
  if (
    redriveAfter !== undefined &&
    !Token.isUnresolved(redriveAfter.toSeconds()) &&
    redriveAfter.toSeconds() < 60
  ) {
    throw new RunlogPropsError(
      "redrive",
      `after must be a minute or more, got ${redriveAfter.toHumanString()}`,
    );
  }
  if (executionTimeout !== undefined) {
    const seconds = executionTimeout.toSeconds();
    if (seconds < 60 || seconds > Duration.days(365).toSeconds()) {
      throw new RunlogPropsError(
        "executionTimeout",
        `must be between one minute and a year (Step Functions' limit), got ${executionTimeout.toHumanString()}`,
      );
    }
  }
  for (const key of ["reservedConcurrency", "maxToolCalls"] as const) {
    const value = concurrency?.[key];
    if (value !== undefined && !positiveInteger(value)) {
      throw new RunlogPropsError(`concurrency.${key}`, `must be a positive whole number, got ${value}`);
    }
  }
  if (typeof modelKeySecret === "string" && modelKeySecret.trim() === "") {
    throw new RunlogPropsError("modelKeySecret", "must name a secret (its name or ARN), got an empty string");
  }
  if (props.dashboard !== undefined && typeof props.dashboard !== "boolean") {
    throw new RunlogPropsError("dashboard", `must be true or false, got ${String(props.dashboard)}`);
  }
  if (alarms !== undefined && alarms !== false && (typeof alarms !== "object" || alarms === null)) {
    throw new RunlogPropsError("alarms", `must be { topic? } or false, got ${String(alarms)}`);
  }
}
