import { fileURLToPath } from "node:url";
import { type Duration, RemovalPolicy } from "aws-cdk-lib";
import { ManagedPolicy, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import {
  Architecture,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  Tracing,
} from "aws-cdk-lib/aws-lambda";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { bundledCode, FROM_SOURCES } from "./lambdaBundle.ts";
import type { FunctionNetwork } from "./network.ts";

export { AGENTS_IMPORT } from "./lambdaBundle.ts";

/** The handler files under functions/, one per task or trigger. */
export type HandlerName =
  | "callModel"
  | "runTool"
  | "recordModelFailure"
  | "finish"
  | "handoff"
  | "startRun"
  | "steerRun"
  | "resume"
  | "sweeper"
  | "api"
  | "redriveDeadLetters"
  | "publishLifecycle";

/**
 * functions/ beside this file's folder: the sources when cdk/ runs as TypeScript,
 * dist/functions when it runs compiled (as in an installed package).
 */
export const FUNCTIONS_DIR = fileURLToPath(new URL("../functions/", import.meta.url));
/** ".ts" from the sources, ".js" from dist/: the handlers are whatever this file is. */
const EXTENSION = FROM_SOURCES ? ".ts" : ".js";

/** The file a handler (or `agents`, the demo agents module) is in. */
export const functionFile = (name: HandlerName | "agents"): string => `${FUNCTIONS_DIR}${name}${EXTENSION}`;

export interface RunlogFunctionProps {
  handler: HandlerName;
  timeout: Duration;
  /** @default 256 */
  memorySize?: number;
  /** Absolute path of the module exporting `agents`, bundled in place of functions/agents. */
  agentsModule: string;
  /** Where esbuild bundles from: its working directory, whose esbuild it is (cdk/bundlingRoot.ts). */
  projectRoot: string;
  environment: Record<string, string>;
  /** @default RetentionDays.THREE_MONTHS */
  logRetention?: RetentionDays;
  /** @default none: the account's unreserved pool */
  reservedConcurrency?: number;
  /** @default Architecture.ARM_64 */
  architecture?: Architecture;
  /** The VPC, subnets and security groups the function runs in. @default none: Lambda's own network */
  network?: FunctionNetwork;
}

/** What Lambda needs of a function's role to attach it to a VPC (create, describe, delete its network interfaces). */
export const VPC_ACCESS_POLICY = "service-role/AWSLambdaVPCAccessExecutionRole";

/**
 * One Lambda function of runlog: Node.js 22 on arm64, bundled by the local
 * esbuild (never Docker) with the AWS SDK inside, so what runs is what the
 * tests ran (cdk/lambdaBundle.ts). Its role starts empty but for writing its
 * own log group; each use grants exactly what it needs.
 */
export class RunlogFunction extends Construct {
  readonly fn: LambdaFunction;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: RunlogFunctionProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, "Logs", {
      retention: props.logRetention ?? RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Our own role instead of AWSLambdaBasicExecutionRole: write access to this function's log group only.
    this.role = new Role(this, "Role", {
      assumedBy: new ServicePrincipal("lambda.amazonaws.com"),
      description: `runlog ${props.handler}: least privilege, granted per use`,
    });
    logGroup.grantWrite(this.role);
    // Lambda adds this only to a role it makes itself; without it Lambda cannot attach the function.
    if (props.network) this.role.addManagedPolicy(ManagedPolicy.fromAwsManagedPolicyName(VPC_ACCESS_POLICY));
    this.fn = new LambdaFunction(this, "Function", {
      code: bundledCode(functionFile(props.handler), props.agentsModule, props.projectRoot),
      handler: "index.handler",
      description: `runlog ${props.handler}`,
      runtime: Runtime.NODEJS_22_X,
      architecture: props.architecture ?? Architecture.ARM_64,
      timeout: props.timeout,
      memorySize: props.memorySize ?? 256,
      role: this.role,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      tracing: Tracing.ACTIVE,
      // No --enable-source-maps: Node would decode the bundle's map on every cold start; a logged
      // error's stack is mapped when it is logged instead (functions/observability/mappedStack.ts).
      ...(props.environment ? { environment: props.environment } : {}),
      ...(props.reservedConcurrency === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrency }),
      ...props.network,
      // A version a deploy replaces is kept: executions started before the deploy still call it.
      currentVersionOptions: { removalPolicy: RemovalPolicy.RETAIN },
    });
  }
}
