import { Duration, Token } from "aws-cdk-lib";
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
