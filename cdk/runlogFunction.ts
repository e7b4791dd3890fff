import { fileURLToPath } from "node:url";
import { type Duration, RemovalPolicy } from "aws-cdk-lib";
import { Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Architecture, LoggingFormat, Runtime, Tracing } from "aws-cdk-lib/aws-lambda";
import { NodejsFunction, OutputFormat } from "aws-cdk-lib/aws-lambda-nodejs";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";

/** The repository root: handlers live in functions/, the lockfile beside package.json. */
export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The handler files under functions/, one per task or trigger. */
export type HandlerName =
  | "callModel"
  | "runTool"
  | "recordModelFailure"
  | "finish"
  | "handoff"
  | "startRun"
  | "resume"
  | "sweeper"
  | "api";

/** The name the functions import their agents by; see functions/agents.ts. */
export const AGENTS_IMPORT = "#agents";

export interface RunlogFunctionProps {
  handler: HandlerName;
  timeout: Duration;
  /** @default 256 */
  memorySize?: number;
  /** Absolute path of the module exporting `agents`, bundled in place of functions/agents.ts. */
  agentsModule: string;
  environment: Record<string, string>;
  /** @default RetentionDays.THREE_MONTHS */
  logRetention?: RetentionDays;
}

// Bundled CommonJS dependencies call require(); an ES module has none unless we make one.
const REQUIRE_SHIM =
  "import { createRequire as __runlogCreateRequire } from 'node:module'; const require = __runlogCreateRequire(import.meta.url);";

/**
 * One Lambda function of runlog: Node.js 22 on arm64, bundled by the local
 * esbuild (never Docker) with the AWS SDK inside, so what runs is what the
 * tests ran. Its role starts empty but for writing its own log group; each
 * use grants exactly what it needs.
 */
export class RunlogFunction extends Construct {
  readonly fn: NodejsFunction;
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
    this.fn = new NodejsFunction(this, "Function", {
      entry: `${ROOT}functions/${props.handler}.ts`,
      handler: "handler",
      description: `runlog ${props.handler}`,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      timeout: props.timeout,
      memorySize: props.memorySize ?? 256,
      role: this.role,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      tracing: Tracing.ACTIVE,
      environment: { NODE_OPTIONS: "--enable-source-maps", ...props.environment },
      projectRoot: ROOT,
      depsLockFilePath: `${ROOT}package-lock.json`,
      bundling: {
        format: OutputFormat.ESM,
        target: "node22",
        mainFields: ["module", "main"],
        banner: REQUIRE_SHIM,
        minify: true,
        // Error names are set from class names and travel to Step Functions and the log: keep them.
        keepNames: true,
        sourceMap: true,
        sourcesContent: false,
        externalModules: [],
        forceDockerBundling: false,
        esbuildArgs: { [`--alias:${AGENTS_IMPORT}`]: props.agentsModule },
      },
    });
  }
}
