import { Duration, Token } from "aws-cdk-lib";
import { MAX_RETENTION_DAYS } from "../lib/core/retention.ts";
import { DEFAULT_MAX_TOOL_CALLS } from "../lib/workflow/definition.ts";
import { validateBedrockProps } from "./bedrock.ts";
import { validateEdgeProps } from "./edgeProps.ts";
import { validateFunctionsSizing } from "./functionProps.ts";
import { validateNetworkProps } from "./network.ts";
import type { RunlogProps } from "./props.ts";
import { RunlogPropsError } from "./propsError.ts";
import { checkPropsShape, describeValue, type EveryKeyListed } from "./propsShape.ts";
import { validateToolGroups } from "./toolGroups.ts";

/*
 * What RunlogProps (cdk/props.ts) may hold, checked at synth: each prop's kind and name
 * (propsShape.ts), then what a template would accept but a deployment or a run would not.
 */

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
  return [...concurrencyWarnings(props, functions), ...trustWarnings(props)];
}

/**
 * `trustedEventSources` with `eventPublishers`: the bus policy the construct writes grants PutEvents
 * with no `events:source` condition, so every publisher may send a trusted source and be believed.
 */
function trustWarnings(props: RunlogProps): PropsWarning[] {
  if (props.trustedEventSources === undefined || props.eventPublishers === undefined) return [];
  return [
    {
      prop: "trustedEventSources",
      message:
        `every principal of eventPublishers may put events with the source ${props.trustedEventSources.map((s) => JSON.stringify(s)).join(", ")} ` +
        "on this deployment's bus (its policy has no events:source condition), and runlog would believe their detail.owner: " +
        "list only publishers you trust to name any owner, or bring a bus (eventBus) whose policy limits each publisher's sources",
    },
  ];
}

function concurrencyWarnings(props: RunlogProps, functions: number): PropsWarning[] {
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
const everyPropListed: EveryKeyListed<RunlogProps, typeof PROP_NAMES> = true;
void everyPropListed;

/**
 * A Duration prop in seconds (a token when given as `Duration.seconds(token)`); CDK cannot convert
 * a token of another unit, which is refused naming the prop rather than by CDK's unscoped error.
 */
function secondsOf(prop: string, duration: Duration): number {
  try {
    return duration.toSeconds({ integral: false });
  } catch (error) {
    throw new RunlogPropsError(
      prop,
      `must be written out, or a token given as Duration.seconds(token): got a token in ${duration.unitLabel()}`,
      { cause: error },
    );
  }
}

/** Check the props that a template would accept but a deployment or a run would not. */
export function validateProps(props: RunlogProps): void {
  checkPropsShape(props, PROP_NAMES);
  for (const prop of ["sweepEvery", "executionTimeout"] as const) {
    const duration = props[prop];
    if (duration !== undefined) secondsOf(prop, duration);
  }
  if (props.redrive !== undefined) secondsOf("redrive.after", props.redrive.after);
  validateEdgeProps(props);
  validateNetworkProps(props);
  const { retentionDays, sweepEvery, executionTimeout, concurrency, modelKeySecret, alarms } = props;
  // Written into every function's variables and the log groups' retention: it must be known at synth.
  if (
    retentionDays !== undefined &&
    (Token.isUnresolved(retentionDays) ||
      !positiveInteger(retentionDays) ||
      retentionDays > MAX_RETENTION_DAYS)
  ) {
    throw new RunlogPropsError(
      "retentionDays",
      `must be a whole number of days from 1 to ${MAX_RETENTION_DAYS} (a hundred years, the most the functions accept), written out (no token); got ${describeValue(retentionDays)}`,
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
      "redrive.after",
      `must be a minute or more, got ${redriveAfter.toHumanString()}`,
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
  for (const key of ["reservedConcurrency", "maxToolCalls"] as const) {
    const value = concurrency?.[key];
    if (value !== undefined && !positiveInteger(value)) {
      throw new RunlogPropsError(
        `concurrency.${key}`,
        `must be a positive whole number, got ${describeValue(value)}`,
      );
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
    if (props.eventPublishers.length === 0) {
      throw new RunlogPropsError("eventPublishers", "must list at least one principal, got []");
    }
    if (props.eventBus !== undefined) {
      throw new RunlogPropsError(
        "eventPublishers",
        "applies to the bus runlog makes, not to an eventBus given: grant events:PutEvents in that bus's own policy",
      );
    }
  }
  validateBedrockProps(props.bedrock);
  if (typeof modelKeySecret === "string") checkSecretName(modelKeySecret);
  const { statusShards } = props;
  if (
    statusShards !== undefined &&
    !(Number.isInteger(statusShards) && statusShards >= 1 && statusShards <= 32)
  ) {
    throw new RunlogPropsError(
      "statusShards",
      `must be a whole number from 1 to 32, got ${describeValue(statusShards)}`,
    );
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
  const base = alarms === false ? undefined : alarms?.runbookBaseUrl;
  if (base !== undefined && (Token.isUnresolved(base) || base.trim() === "")) {
    throw new RunlogPropsError(
      "alarms.runbookBaseUrl",
      `must be a URL or path written out (no token), got ${describeValue(base)}`,
    );
  }
}

/** A secret's name as Secrets Manager allows it (1 to 512 of letters, digits and /_+=.@-). */
const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
/** A Secrets Manager secret's ARN, complete or partial. */
const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]{1,512}$/;

/** `modelKeySecret` given as a string: a name or ARN Secrets Manager could hold (a token passes). */
function checkSecretName(secret: string): void {
  if (Token.isUnresolved(secret)) return;
  if (secret.startsWith("arn:") ? SECRET_ARN.test(secret) : SECRET_NAME.test(secret)) return;
  throw new RunlogPropsError(
    "modelKeySecret",
    secret.startsWith("arn:")
      ? `must be a Secrets Manager secret's ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>), got ${describeValue(secret)}`
      : `must be a secret's name (1 to 512 of letters, digits and /_+=.@-) or ARN, got ${describeValue(secret)}`,
  );
}
