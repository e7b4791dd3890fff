import { Duration, type RemovalPolicy, Token } from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import type { IEventBus } from "aws-cdk-lib/aws-events";
import type { IPrincipal } from "aws-cdk-lib/aws-iam";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import type { ISecret } from "aws-cdk-lib/aws-secretsmanager";
import type { ITopic } from "aws-cdk-lib/aws-sns";
import { DEFAULT_MAX_TOOL_CALLS } from "../lib/workflow/definition.ts";
import { type RunlogBedrockProps, validateBedrockProps } from "./bedrock.ts";
import { type RunlogEdgeProps, validateEdgeProps } from "./edgeProps.ts";
import type { RunlogEncryptionKey } from "./encryption.ts";
import { type RunlogFunctionsSizing, validateFunctionsSizing } from "./functionProps.ts";
import { type RunlogNetworkProps, validateNetworkProps } from "./network.ts";
import { RunlogPropsError } from "./propsError.ts";
import { checkPropsShape, describeValue } from "./propsShape.ts";
import type { StateMachineLogs } from "./runStateMachine.ts";
import { type RunlogToolGroups, validateToolGroups } from "./toolGroups.ts";

export { agentsModulePath, bundlingRoot, LOCKFILES } from "./bundlingRoot.ts";
export { RunlogPropsError } from "./propsError.ts";

/** Where the alarms go. */
export interface RunlogAlarmsProps {
  /** The topic told when an alarm fires and when it clears. @default none: the alarms only show in CloudWatch */
  topic?: ITopic;
  /** Where you publish runlog's runbooks: each alarm's description links `<runbookBaseUrl>/<name>.md`. @default "docs/runbooks" (the pages in the runlog package) */
  runbookBaseUrl?: string;
}

/** Bounds on how much runs do at once. */
export interface RunlogConcurrency {
  /** Reserved concurrency of each step function (CallModel, RunTool, RecordModelFailure, Finish, Handoff): at most this many of each at once, and as many kept for them; at least `maxToolCalls`, so one response's tool calls can all run. @default none: they share the account's unreserved pool */
  reservedConcurrency?: number;
  /** The most tool calls of one model response that run at once (the RunTools Map's MaxConcurrency), each a RunTool Lambda: 1 to 40, an inline Map's most concurrent iterations. @default 10 */
  maxToolCalls?: number;
}

export interface RunlogProps extends RunlogEdgeProps, RunlogNetworkProps {
  /** The module exporting `agents: Record<string, AgentFactory>`, bundled into every function; absolute or relative to the working directory. */
  agentsModule: string;
  /** The project the functions are bundled from (where esbuild bundles them, with the project's esbuild; its lockfile pins what is bundled). A runlog linked from outside it bundles from its own checkout. @default the nearest directory at or above agentsModule holding package-lock.json, pnpm-lock.yaml, yarn.lock, bun.lock or bun.lockb */
  projectRoot?: string;
  /** The Secrets Manager secret holding the model API key (the secret, or its name or ARN); only CallModel may read it. @default none: only scripted models can be called */
  modelKeySecret?: ISecret | string;
  /** The Amazon Bedrock models runs may call as `bedrock:<id>`: only CallModel may invoke them, and only those. @default none: no Bedrock model can be called */
  bedrock?: RunlogBedrockProps;
  /** Whole days a run that finished (completed, cancelled, failed…) is kept before DynamoDB's TTL deletes it. @default forever */
  retentionDays?: number;
  /** The bus runlog.StartRun, runlog.ResumeRun and the steering events (SendMessage, Decide, CancelRun) arrive on. @default a bus of this deployment's own (`eventBus` of the construct), so no other deployment's events reach it */
  eventBus?: IEventBus;
  /** Who may put events on the bus runlog makes (events:PutEvents in its resource policy); not with `eventBus`, whose policy is its owner's. @default this account only */
  eventPublishers?: IPrincipal[];
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
  /** The run log table to use instead of making one: it must have runlog's keys and indexes (docs/reference/construct-props.md); one imported by attributes is used as it is. @default a table the construct makes */
  table?: ITable;
  /** What happens to the runs when this construct is removed; not with `table`. @default RemovalPolicy.RETAIN */
  tableRemovalPolicy?: RemovalPolicy;
  /** DynamoDB's deletion protection on the table the construct makes: nothing deletes it while on; not with `table`. @default true */
  tableDeletionProtection?: boolean;
  /** Partitions of the status index each status is spread over (1 to 32), so head writes of a busy fleet are not throttled on one; raise it, never lower it. @default 8 */
  statusShards?: number;
  /** Keep the unsharded status index (`byStatus`) of a table made before the status index was sharded, for the first of the two deploys an upgrade takes (cdk/README.md). @default false */
  legacyStatusIndex?: boolean;
  /** CloudWatch alarms, each linking its runbook (docs/runbooks/): dead letters, executions, functions, the table, the API, the model, the sweep; false for none. @default alarms with no action */
  alarms?: RunlogAlarmsProps | false;
  /** A CloudWatch dashboard of executions, steps, the model, resumes, sweeps and the dead-letter queue; false for none. @default true */
  dashboard?: boolean;
  /** Bounds on parallel steps and tool calls. @default no bounds but the account's */
  concurrency?: RunlogConcurrency;
  /**
   * How long the functions', the state machine's and the HTTP API's logs are kept.
   * @default with retentionDays, the longest CloudWatch retention not longer than it; else RetentionDays.THREE_MONTHS
   */
  logRetention?: RetentionDays;
  /**
   * What the run state machine logs. Warning: `level: LogLevel.ALL` with `includeExecutionData`
   * keeps every state's input and output (run ids, next actions, error messages) in CloudWatch Logs
   * for `logRetention`, whatever `retentionDays` deletes from the table.
   * @default { level: LogLevel.ERROR, includeExecutionData: false }
   */
  stateMachineLogs?: StateMachineLogs;
  /** Per function (`callModel`, `runTool`, … `api`): memorySize, timeout, architecture, reservedConcurrency, environment; a Task state waits a minute longer than its function. @default runlog's own sizes (docs/reference/construct-props.md) */
  functions?: RunlogFunctionsSizing;
  /** Customer-managed KMS keys: one for the table, log groups, queues, bus and model key secret, or one per kind (`{ table, logs, queues, bus, secret }`); docs/guides/encryption.md. @default AWS-managed encryption */
  encryptionKey?: RunlogEncryptionKey;
  /** Tool groups: `{ payments: { tools: ["issue_refund"], ...sizing } }` runs those tools in a RunTool function with a role of its own (`toolGroup("payments")`); other tools stay in `runTool`. @default none: every tool runs in `runTool` */
  toolGroups?: RunlogToolGroups;
}

const positiveInteger = (value: number) =>
  Token.isUnresolved(value) || (Number.isInteger(value) && value > 0);

/** Step Functions runs at most this many iterations of an inline Map at once (its documented limit). */
export const MAX_TOOL_CALLS_LIMIT = 40;
/** A new account's concurrency quota, and what Lambda keeps unreserved out of it. */
export const ACCOUNT_CONCURRENCY = { default: 1_000, unreserved: 100 } as const;

/** What a prop's value means for the account, worth a warning at synth but not an error. */
export interface PropsWarning {
  prop: string;
  message: string;
}

/**
 * Props that can deploy but may not on an account with default quotas (RunlogProps already
 * valid): `functions` is how many functions `concurrency.reservedConcurrency` reserves for.
 */
export function propsWarnings(props: RunlogProps, functions: number): PropsWarning[] {
  const reserved = props.concurrency?.reservedConcurrency;
  if (reserved === undefined || Token.isUnresolved(reserved)) return [];
  const most = ACCOUNT_CONCURRENCY.default - ACCOUNT_CONCURRENCY.unreserved;
  if (reserved * functions <= most) return [];
  return [
    {
      prop: "concurrency.reservedConcurrency",
      message:
        `${reserved} for each of ${functions} functions reserves ${reserved * functions}: ` +
        `more than the ${most} an account with the default quota (${ACCOUNT_CONCURRENCY.default}) can reserve; ` +
        "the deploy fails unless the account's quota was raised",
    },
  ];
}

/** Every prop the construct reads; a key not here is a mistake (a typo, a prop of another version). */
export const PROP_NAMES = [
  "agentsModule",
  "projectRoot",
  "modelKeySecret",
  "bedrock",
  "retentionDays",
  "eventBus",
  "eventPublishers",
  "sweepEvery",
  "redrive",
  "executionTimeout",
  "table",
  "tableRemovalPolicy",
  "tableDeletionProtection",
  "statusShards",
  "legacyStatusIndex",
  "alarms",
  "dashboard",
  "concurrency",
  "logRetention",
  "stateMachineLogs",
  "functions",
  "encryptionKey",
  "toolGroups",
  "auth",
  "adminPrincipals",
  "maxRunningPerOwner",
  "models",
  "throttle",
  "apiReservedConcurrency",
  "trustedEventSources",
  "vpc",
  "vpcSubnets",
  "securityGroups",
  "vpcEndpoints",
] as const satisfies readonly (keyof RunlogProps)[];

// A prop added to RunlogProps and not to the list above fails the build here.
type Unlisted = Exclude<keyof RunlogProps, (typeof PROP_NAMES)[number]>;
const everyPropListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyPropListed;

/** Check the props that a template would accept but a deployment or a run would not. */
export function validateProps(props: RunlogProps): void {
  checkPropsShape(props, PROP_NAMES);
  validateEdgeProps(props);
  validateNetworkProps(props);
  const { retentionDays, sweepEvery, executionTimeout, concurrency, modelKeySecret, alarms } = props;
  // Written into every function's variables and the log groups' retention: it must be known at synth.
  if (retentionDays !== undefined && (Token.isUnresolved(retentionDays) || !positiveInteger(retentionDays))) {
    throw new RunlogPropsError(
      "retentionDays",
      `must be a positive whole number of days written out (no token), got ${describeValue(retentionDays)}`,
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
    const seconds = executionTimeout.toSeconds({ integral: false });
    if (!Number.isInteger(seconds) || seconds < 60 || seconds > Duration.days(365).toSeconds()) {
      throw new RunlogPropsError(
        "executionTimeout",
        `must be whole seconds between one minute and a year (Step Functions' limit), got ${executionTimeout.toHumanString()}`,
      );
    }
  }
  if (concurrency !== undefined && (typeof concurrency !== "object" || concurrency === null)) {
    throw new RunlogPropsError(
      "concurrency",
      `must be { reservedConcurrency?, maxToolCalls? }, got ${String(concurrency)}`,
    );
  }
  for (const key of ["reservedConcurrency", "maxToolCalls"] as const) {
    const value = concurrency?.[key];
    if (value !== undefined && !positiveInteger(value)) {
      throw new RunlogPropsError(`concurrency.${key}`, `must be a positive whole number, got ${value}`);
    }
  }
  const maxToolCalls = concurrency?.maxToolCalls;
  if (
    maxToolCalls !== undefined &&
    !Token.isUnresolved(maxToolCalls) &&
    maxToolCalls > MAX_TOOL_CALLS_LIMIT
  ) {
    throw new RunlogPropsError(
      "concurrency.maxToolCalls",
      `must be at most ${MAX_TOOL_CALLS_LIMIT} (the most iterations Step Functions runs at once in an inline Map), got ${maxToolCalls}`,
    );
  }
  const reserved = concurrency?.reservedConcurrency;
  const batch = maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
  if (
    reserved !== undefined &&
    !Token.isUnresolved(reserved) &&
    !Token.isUnresolved(batch) &&
    reserved < batch
  ) {
    throw new RunlogPropsError(
      "concurrency.reservedConcurrency",
      `must be at least concurrency.maxToolCalls (${batch}${maxToolCalls === undefined ? ", its default" : ""}), so one response's tool calls can run at once; got ${reserved}`,
    );
  }
  validateFunctionsSizing(props.functions, sweepEvery);
  validateToolGroups(props.toolGroups, maxToolCalls);
  const runToolReserved = props.functions?.runTool?.reservedConcurrency;
  if (
    runToolReserved !== undefined &&
    !Token.isUnresolved(runToolReserved) &&
    !Token.isUnresolved(batch) &&
    runToolReserved < batch
  ) {
    throw new RunlogPropsError(
      "functions.runTool.reservedConcurrency",
      `must be at least concurrency.maxToolCalls (${batch}), so one response's tool calls can run at once; got ${runToolReserved}`,
    );
  }
  if (props.eventPublishers !== undefined) {
    if (!Array.isArray(props.eventPublishers) || props.eventPublishers.length === 0) {
      throw new RunlogPropsError("eventPublishers", "must list at least one principal");
    }
    if (props.eventBus !== undefined) {
      throw new RunlogPropsError(
        "eventPublishers",
        "applies to the bus runlog makes, not to an eventBus given: grant events:PutEvents in that bus's own policy",
      );
    }
  }
  validateBedrockProps(props.bedrock);
  if (typeof modelKeySecret === "string" && modelKeySecret.trim() === "") {
    throw new RunlogPropsError("modelKeySecret", "must name a secret (its name or ARN), got an empty string");
  }
  const { statusShards } = props;
  if (
    statusShards !== undefined &&
    !(Number.isInteger(statusShards) && statusShards >= 1 && statusShards <= 32)
  ) {
    throw new RunlogPropsError("statusShards", `must be a whole number from 1 to 32, got ${statusShards}`);
  }
  if (props.dashboard !== undefined && typeof props.dashboard !== "boolean") {
    throw new RunlogPropsError("dashboard", `must be true or false, got ${String(props.dashboard)}`);
  }
  // A table the user brings is the user's to protect: the construct neither removes nor guards it.
  for (const key of ["tableRemovalPolicy", "tableDeletionProtection"] as const) {
    if (props.table !== undefined && props[key] !== undefined) {
      throw new RunlogPropsError(
        key,
        "is for the table the construct makes: set it on the table given as `table`",
      );
    }
  }
  if (props.tableDeletionProtection !== undefined && typeof props.tableDeletionProtection !== "boolean") {
    throw new RunlogPropsError(
      "tableDeletionProtection",
      `must be true or false, got ${String(props.tableDeletionProtection)}`,
    );
  }
  if (alarms !== undefined && alarms !== false && (typeof alarms !== "object" || alarms === null)) {
    throw new RunlogPropsError(
      "alarms",
      `must be { topic?, runbookBaseUrl? } or false, got ${String(alarms)}`,
    );
  }
  const base = alarms === false ? undefined : alarms?.runbookBaseUrl;
  if (base !== undefined && (Token.isUnresolved(base) || base.trim() === "")) {
    throw new RunlogPropsError(
      "alarms.runbookBaseUrl",
      "must be a URL or path written out (no token), got an empty or unresolved one",
    );
  }
}
