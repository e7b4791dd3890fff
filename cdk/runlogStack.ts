import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { Duration, type RemovalPolicy, Stack, type StackProps } from "aws-cdk-lib";
import type { HttpApi } from "aws-cdk-lib/aws-apigatewayv2";
import type { Table } from "aws-cdk-lib/aws-dynamodb";
import { EventBus } from "aws-cdk-lib/aws-events";
import { SqsDestination } from "aws-cdk-lib/aws-lambda-destinations";
import type { NodejsFunction } from "aws-cdk-lib/aws-lambda-nodejs";
import { type ISecret, Secret } from "aws-cdk-lib/aws-secretsmanager";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import type { Construct } from "constructs";
import { TASK_TIMEOUT_SECONDS } from "../lib/workflow/definition.ts";
import { grantExecutions, grantExecutionsApart, grantStore } from "./grants.ts";
import { RunlogHttpApi } from "./httpApi.ts";
import { type HandlerName, ROOT, RunlogFunction } from "./runlogFunction.ts";
import { RunStateMachine } from "./runStateMachine.ts";
import { RunlogTable } from "./table.ts";
import { Triggers } from "./triggers.ts";

export interface RunlogStackProps extends StackProps {
  /** The module exporting `agents: Record<string, AgentFactory>`, absolute or relative to the working directory. @default functions/agents.ts (the demo agent) */
  agentsModule?: string;
  /** The Secrets Manager secret (ARN or name) holding the model API key; only CallModel may read it. @default none: only scripted models can be called */
  modelKeySecret?: string;
  /** How often the sweeper runs. @default Duration.minutes(5) */
  sweepEvery?: Duration;
  /** The event bus StartRun and ResumeRun events arrive on. @default the default bus */
  eventBusName?: string;
  /** The longest one execution may take; leases last as long, plus a margin. @default Duration.hours(24) */
  executionTimeout?: Duration;
  /** @default RemovalPolicy.RETAIN */
  tableRemovalPolicy?: RemovalPolicy;
  /** Days a run that finished (completed, cancelled, failed…) is kept before DynamoDB's TTL deletes it. @default forever */
  retentionDays?: number;
}

/** Each function's own limits: the task ones match lib/workflow's TimeoutSeconds. */
const SIZING: Record<HandlerName, { timeout: Duration; memorySize: number }> = {
  callModel: { timeout: Duration.seconds(TASK_TIMEOUT_SECONDS.CallModel), memorySize: 512 },
  runTool: { timeout: Duration.seconds(TASK_TIMEOUT_SECONDS.RunTool), memorySize: 512 },
  recordModelFailure: { timeout: Duration.seconds(TASK_TIMEOUT_SECONDS.RecordModelFailure), memorySize: 256 },
  finish: { timeout: Duration.seconds(TASK_TIMEOUT_SECONDS.Finish), memorySize: 256 },
  handoff: { timeout: Duration.seconds(TASK_TIMEOUT_SECONDS.Handoff), memorySize: 256 },
  startRun: { timeout: Duration.seconds(30), memorySize: 256 },
  resume: { timeout: Duration.seconds(60), memorySize: 256 },
  sweeper: { timeout: Duration.minutes(5), memorySize: 512 },
  // API Gateway gives an integration at most 30 s; runs execute in Step Functions, not here.
  api: { timeout: Duration.seconds(29), memorySize: 512 },
};
/** The id of the policy letting Handoff start executions (cdk/nag.ts acknowledges its finding). */
export const HANDOFF_POLICY_ID = "HandoffExecutions";
/** The lease is claimed just before the execution starts: it must outlast the execution's timeout. */
const LEASE_MARGIN = Duration.minutes(5);

function importSecret(scope: Construct, nameOrArn: string): ISecret {
  if (!nameOrArn.startsWith("arn:")) return Secret.fromSecretNameV2(scope, "ModelKey", nameOrArn);
  return /-[A-Za-z0-9]{6}$/.test(nameOrArn)
    ? Secret.fromSecretCompleteArn(scope, "ModelKey", nameOrArn)
    : Secret.fromSecretPartialArn(scope, "ModelKey", nameOrArn);
}

function agentsPath(module: string | undefined): string {
  const path =
    module === undefined ? `${ROOT}functions/agents.ts` : isAbsolute(module) ? module : resolve(module);
  if (!existsSync(path))
    throw new Error(`runlog: agents module ${path} does not exist (runlog:agentsModule)`);
  return path;
}

/**
 * runlog on AWS: the run log table, one Lambda per step, the Step Functions
 * loop that drives them, and what restarts runs (the sweep schedule, failed
 * executions, events). Each function can do only what its step needs.
 */
export class RunlogStack extends Stack {
  readonly table: Table;
  readonly stateMachine: StateMachine;
  readonly functions: Readonly<Record<HandlerName, NodejsFunction>>;
  /** Events and async invocations that failed after their retries. */
  readonly deadLetters: Queue;
  /** The HTTP API: IAM-authorized routes served by the `api` function. */
  readonly httpApi: HttpApi;

  constructor(scope: Construct, id: string, props: RunlogStackProps = {}) {
    super(scope, id, props);
    this.table = new RunlogTable(
      this,
      "Runs",
      props.tableRemovalPolicy ? { removalPolicy: props.tableRemovalPolicy } : {},
    ).table;
    const executionTimeout = props.executionTimeout ?? Duration.hours(24);
    const common = {
      TABLE_NAME: this.table.tableName,
      RUNLOG_LEASE_MS: String(executionTimeout.plus(LEASE_MARGIN).toMilliseconds()),
      ...(props.retentionDays === undefined ? {} : { RUNLOG_RETENTION_DAYS: String(props.retentionDays) }),
    };
    const agentsModule = agentsPath(props.agentsModule);
    const secret = props.modelKeySecret === undefined ? undefined : importSecret(this, props.modelKeySecret);
    const make = (handler: HandlerName, environment: Record<string, string> = {}) =>
      new RunlogFunction(this, handler[0]!.toUpperCase() + handler.slice(1), {
        handler,
        ...SIZING[handler],
        agentsModule,
        environment: { ...common, ...environment },
      }).fn;

    const callModel = make("callModel", secret ? { MODEL_KEY_SECRET_ARN: secret.secretArn } : {});
    const steps = {
      callModel,
      runTool: make("runTool"),
      recordModelFailure: make("recordModelFailure"),
      finish: make("finish"),
      handoff: make("handoff"),
    };
    if (secret) secret.grantRead(callModel);
    for (const fn of Object.values(steps)) grantStore(fn, this.table);

    const machine = new RunStateMachine(this, "Run", {
      tasks: {
        CallModel: steps.callModel,
        RunTool: steps.runTool,
        RecordModelFailure: steps.recordModelFailure,
        Finish: steps.finish,
        Handoff: steps.handoff,
      },
      timeout: executionTimeout,
    });
    this.stateMachine = machine.stateMachine;
    // Handoff starts the next execution of the machine that invokes it: a policy of its own, apart
    // from the role's default one, so the function does not wait on the machine that waits on it.
    grantExecutionsApart(this, HANDOFF_POLICY_ID, steps.handoff.role!, this.stateMachine);

    const control = { STATE_MACHINE_ARN: this.stateMachine.stateMachineArn };
    const starters = {
      startRun: make("startRun", control),
      resume: make("resume", control),
      sweeper: make("sweeper", control),
    };
    this.deadLetters = new Queue(this, "DeadLetters", {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    for (const [name, fn] of Object.entries(starters)) {
      grantStore(fn, this.table, { listByStatus: name === "sweeper" });
      grantExecutions(fn, this.stateMachine);
      fn.configureAsyncInvoke({ retryAttempts: 2, onFailure: new SqsDestination(this.deadLetters) });
    }
    const api = make("api", control);
    grantStore(api, this.table, { listByStatus: true });
    grantExecutions(api, this.stateMachine);
    this.functions = { ...steps, ...starters, api };
    this.httpApi = new RunlogHttpApi(this, "HttpApi", { handler: api }).api;

    new Triggers(this, "Triggers", {
      stateMachine: this.stateMachine,
      ...starters,
      deadLetters: this.deadLetters,
      ...(props.sweepEvery ? { sweepEvery: props.sweepEvery } : {}),
      ...(props.eventBusName ? { eventBus: EventBus.fromEventBusName(this, "Bus", props.eventBusName) } : {}),
    });
  }
}
