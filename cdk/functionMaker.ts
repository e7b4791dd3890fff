import type { Duration } from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";
import { NAMES } from "../lib/runtime/config.ts";
import { leaseMsFor } from "../lib/workflow/timeouts.ts";
import { DEFAULT_API_RESERVED_CONCURRENCY } from "./edgeProps.ts";
import { DEFAULT_SIZING, type RunlogFunctionSizing } from "./functionProps.ts";
import type { RunlogNetwork } from "./network.ts";
import type { RunlogProps } from "./props.ts";
import { type HandlerName, RunlogFunction } from "./runlogFunction.ts";

/** The functions behind the state machine's Task states (the ones `concurrency.reservedConcurrency` bounds). */
export const STEPS = ["callModel", "runTool", "recordModelFailure", "finish", "handoff"] as const;

/** One of the functions behind the state machine's Task states. */
export type StepName = (typeof STEPS)[number];

/** What every function of the deployment shares: the table, its bundle's sources, its logs and network. */
export interface FunctionMakerOptions {
  table: ITable;
  deployment: string;
  /** The longest one execution may take: the lease claimed before it starts must outlast it. */
  executionTimeout: Duration;
  agentsModule: string;
  projectRoot: string;
  logRetention: RetentionDays;
  network: RunlogNetwork | undefined;
}

/**
 * Makes one of the construct's Lambda functions from a handler's code, sized by `functions`
 * (or `own`), with runlog's variables on top of the team's and the handler's own `environment`.
 */
export type MakeFunction = (
  handler: HandlerName,
  environment?: Record<string, string>,
  own?: { id: string; sizing: RunlogFunctionSizing },
) => LambdaFunction;

/**
 * How the Runlog construct makes its functions: each sized by `functions`, its reserved concurrency
 * from its own sizing, `concurrency.reservedConcurrency` (the steps) or `apiReservedConcurrency`.
 */
export function functionMaker(
  scope: Construct,
  props: RunlogProps,
  options: FunctionMakerOptions,
): MakeFunction {
  const { agentsModule, projectRoot, logRetention } = options;
  const common = {
    [NAMES.tableName]: options.table.tableName,
    [NAMES.deployment]: options.deployment,
    // The lease is claimed just before the execution starts: it must outlast the execution's timeout.
    [NAMES.leaseMs]: String(leaseMsFor(options.executionTimeout.toSeconds())),
    ...(props.retentionDays === undefined ? {} : { [NAMES.retentionDays]: String(props.retentionDays) }),
    ...(props.statusShards === undefined ? {} : { [NAMES.statusShards]: String(props.statusShards) }),
  };
  const network = options.network ? { network: options.network.functions } : {};
  const reserved = props.concurrency?.reservedConcurrency;
  const apiReserved = props.apiReservedConcurrency ?? DEFAULT_API_RESERVED_CONCURRENCY;
  const reservedFor = (handler: HandlerName) => {
    const own = props.functions?.[handler]?.reservedConcurrency;
    if (own !== undefined) return own;
    if (handler === "api") return apiReserved === false ? undefined : apiReserved;
    return (STEPS as readonly string[]).includes(handler) ? reserved : undefined;
  };
  // `own`: a function of its own made from the handler's code (a tool group's), with its own id and sizing.
  return (handler, environment = {}, own) => {
    const reservedConcurrency = own ? (own.sizing.reservedConcurrency ?? reserved) : reservedFor(handler);
    const sizing = own?.sizing ?? props.functions?.[handler] ?? {};
    // A step's deadline is its function's timeout: tell the steps that keep one a timeout of the team's.
    const stepTimeout =
      sizing.timeout !== undefined && (handler === "callModel" || handler === "runTool")
        ? { [NAMES.stepTimeoutSeconds]: String(sizing.timeout.toSeconds()) }
        : {};
    return new RunlogFunction(scope, own?.id ?? handler[0]!.toUpperCase() + handler.slice(1), {
      handler,
      timeout: sizing.timeout ?? DEFAULT_SIZING[handler].timeout,
      memorySize: sizing.memorySize ?? DEFAULT_SIZING[handler].memorySize,
      ...(sizing.architecture ? { architecture: sizing.architecture } : {}),
      agentsModule,
      projectRoot,
      // The team's variables first: runlog's own are never overridden (validateFunctionsSizing refuses them too).
      environment: { ...sizing.environment, ...common, ...environment, ...stepTimeout },
      logRetention,
      ...network,
      ...(reservedConcurrency === undefined ? {} : { reservedConcurrency }),
    }).fn;
  };
}
