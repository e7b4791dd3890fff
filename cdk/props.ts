import type { Duration, RemovalPolicy } from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import type { IEventBus } from "aws-cdk-lib/aws-events";
import type { IPrincipal } from "aws-cdk-lib/aws-iam";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import type { ISecret } from "aws-cdk-lib/aws-secretsmanager";
import type { ITopic } from "aws-cdk-lib/aws-sns";
import type { RunlogBedrockProps } from "./bedrock.ts";
import type { RunlogEdgeProps } from "./edgeProps.ts";
import type { RunlogEncryptionKey } from "./encryption.ts";
import type { RunlogFunctionsSizing } from "./functionProps.ts";
import type { RunlogNetworkProps } from "./network.ts";
import type { StateMachineLogs } from "./runStateMachine.ts";
import type { RunlogToolGroups } from "./toolGroups.ts";

export { agentsModulePath, bundlingRoot, LOCKFILES } from "./bundlingRoot.ts";
export { RunlogPropsError } from "./propsError.ts";

/** Where the alarms go. */
export interface RunlogAlarmsProps {
  /** The topic told when an alarm fires and when it clears (a topic, not its ARN: `Topic.fromTopicArn`). @default none: the alarms only show in CloudWatch */
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
  /** Whole days (1 to 36,500, MAX_RETENTION_DAYS) a run that finished (completed, cancelled, failed…) is kept before DynamoDB's TTL deletes it. @default forever */
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
