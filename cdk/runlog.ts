import { Annotations, type CfnOutput, Duration, Fn } from "aws-cdk-lib";
import type { HttpApi } from "aws-cdk-lib/aws-apigatewayv2";
import type { Alarm, Dashboard } from "aws-cdk-lib/aws-cloudwatch";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import { EventBus, type IEventBus } from "aws-cdk-lib/aws-events";
import { AccountRootPrincipal, PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { type ISecret, Secret } from "aws-cdk-lib/aws-secretsmanager";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";
import { NAMES } from "../lib/runtime/config.ts";
import { EXECUTION_TIMEOUT_SECONDS, leaseMsFor } from "../lib/workflow/timeouts.ts";
import { groupTaskName } from "../lib/workflow/toolGroups.ts";
import { RunlogAlarms } from "./alarms.ts";
import { grantBedrock } from "./bedrock.ts";
import { RunlogDashboard } from "./dashboard.ts";
import { busName, deploymentName } from "./deployment.ts";
import {
  apiEnvironment,
  DEFAULT_API_RESERVED_CONCURRENCY,
  modelsEnvironment,
  startRunEnvironment,
  trustedSourcesEnvironment,
} from "./edgeProps.ts";
import { applyEncryption, type RunlogEncryptionKeys } from "./encryption.ts";
import { DEFAULT_SIZING, type RunlogFunctionSizing } from "./functionProps.ts";
import {
  deadLetterDestination,
  grantExecutions,
  grantExecutionsApart,
  grantRedrive,
  grantSecretValue,
  grantStopExecutions,
  grantStore,
  HANDOFF_POLICY_ID,
  SUBAGENT_POLICY_ID,
} from "./grants.ts";
import { RunlogHttpApi } from "./httpApi.ts";
import { LifecyclePublishing } from "./lifecycle.ts";
import { logRetentionOf } from "./logRetention.ts";
import { acceptedFindings } from "./nag.ts";
import { RunlogNetwork } from "./network.ts";
import { addRunlogOutputs, type RunlogOutputsOptions } from "./outputs.ts";
import { checkOwnTable } from "./ownTable.ts";
import {
  agentsModulePath,
  bundlingRoot,
  propsWarnings,
  type RunlogProps,
  RunlogPropsError,
  validateProps,
} from "./props.ts";
import { type HandlerName, RunlogFunction } from "./runlogFunction.ts";
import { RunStateMachine } from "./runStateMachine.ts";
import { RunlogTable } from "./table.ts";
import type { ToolGroup } from "./toolGroups.ts";
import { Triggers } from "./triggers.ts";

/** The functions behind the state machine's Task states (the ones `concurrency.reservedConcurrency` bounds). */
const STEPS = ["callModel", "runTool", "recordModelFailure", "finish", "handoff"] as const;

function modelKey(scope: Construct, secret: ISecret | string): ISecret {
  if (typeof secret !== "string") return secret;
  if (!secret.startsWith("arn:")) return Secret.fromSecretNameV2(scope, "ModelKey", secret);
  return /-[A-Za-z0-9]{6}$/.test(secret)
    ? Secret.fromSecretCompleteArn(scope, "ModelKey", secret)
    : Secret.fromSecretPartialArn(scope, "ModelKey", secret);
}

/**
 * runlog in your stack: the run log table, one Lambda per step with your
 * agents and tools bundled in, the Step Functions loop that drives them, the
 * HTTP API, and what restarts runs (the sweep schedule, failed executions,
 * events). Each function can do only what its step needs.
 */
export class Runlog extends Construct {
  /** The run log: the table the construct made, or the one given as `table`. */
  readonly table: ITable;
  readonly stateMachine: StateMachine;
  readonly functions: Readonly<Record<HandlerName, LambdaFunction>>;
  /** Events and async invocations that failed after their retries. */
  readonly deadLetters: Queue;
  /** The HTTP API: IAM- (or JWT-) authorized routes served by the `api` function. */
  readonly httpApi: HttpApi;
  /** The CloudWatch alarms (none when `alarms: false`). */
  readonly alarms: readonly Alarm[];
  /** The CloudWatch dashboard (none when `dashboard: false`). */
  readonly dashboard: Dashboard | undefined;
  /** What publishes each run's lifecycle events on `eventBus` from the table's stream (none for a given table without a stream). */
  readonly lifecycle: LifecyclePublishing | undefined;
  /** The bus runlog.StartRun, runlog.ResumeRun and the steering events arrive on, and lifecycle events leave on: this deployment's own, or `eventBus`. */
  readonly eventBus: IEventBus;
  /** The functions' subnets, security groups and VPC endpoints (none without `vpc`). */
  readonly network: RunlogNetwork | undefined;
  /**
   * The name setting this deployment apart in its account and region (cdk/deployment.ts): its
   * metrics' `deployment` dimension, its bus's and state machine log group's names.
   */
  readonly deployment: string;
  /** The customer-managed keys by kind of resource (none without `encryptionKey`). */
  readonly encryptionKeys: RunlogEncryptionKeys;
  /** Each tool group's RunTool function, by group name (`toolGroup(name)`). */
  private readonly groups: Readonly<Record<string, LambdaFunction>>;

  constructor(scope: Construct, id: string, props: RunlogProps) {
    super(scope, id);
    validateProps(props);
    const groupCount = Object.keys(props.toolGroups ?? {}).length;
    for (const { prop, message } of propsWarnings(props, STEPS.length + groupCount)) {
      Annotations.of(this).addWarningV2(`runlog:${prop}`, `${prop}: ${message}`);
    }
    this.deployment = deploymentName(this);
    const agentsModule = agentsModulePath(props.agentsModule);
    const root = bundlingRoot(agentsModule, props.projectRoot);
    if (props.table) checkOwnTable(this, props.table, { retention: props.retentionDays !== undefined });
    // A Table is an ITable; exactOptionalPropertyTypes meets aws-cdk-lib's own optional fields.
    this.table =
      props.table ??
      (new RunlogTable(this, "Runs", {
        ...(props.tableRemovalPolicy ? { removalPolicy: props.tableRemovalPolicy } : {}),
        ...(props.tableDeletionProtection === undefined
          ? {}
          : { deletionProtection: props.tableDeletionProtection }),
        ...(props.legacyStatusIndex ? { legacyStatusIndex: true } : {}),
      }).table as ITable);
    const executionTimeout = props.executionTimeout ?? Duration.seconds(EXECUTION_TIMEOUT_SECONDS);
    // Every log group of the deployment keeps its logs no longer than the runs are kept.
    const logRetention = logRetentionOf(props);
    const common = {
      [NAMES.tableName]: this.table.tableName,
      [NAMES.deployment]: this.deployment,
      // The lease is claimed just before the execution starts: it must outlast the execution's timeout.
      [NAMES.leaseMs]: String(leaseMsFor(executionTimeout.toSeconds())),
      ...(props.retentionDays === undefined ? {} : { [NAMES.retentionDays]: String(props.retentionDays) }),
      ...(props.statusShards === undefined ? {} : { [NAMES.statusShards]: String(props.statusShards) }),
    };
    this.network = props.vpc ? new RunlogNetwork(this, "Network", { ...props, vpc: props.vpc }) : undefined;
    const network = this.network ? { network: this.network.functions } : {};
    const secret = props.modelKeySecret === undefined ? undefined : modelKey(this, props.modelKeySecret);
    const reserved = props.concurrency?.reservedConcurrency;
    const apiReserved = props.apiReservedConcurrency ?? DEFAULT_API_RESERVED_CONCURRENCY;
    const reservedFor = (handler: HandlerName) => {
      const own = props.functions?.[handler]?.reservedConcurrency;
      if (own !== undefined) return own;
      if (handler === "api") return apiReserved === false ? undefined : apiReserved;
      return (STEPS as readonly string[]).includes(handler) ? reserved : undefined;
    };
    // `own`: a function of its own made from the handler's code (a tool group's), with its own id and sizing.
    const make = (
      handler: HandlerName,
      environment: Record<string, string> = {},
      own?: { id: string; sizing: RunlogFunctionSizing },
    ) => {
      const reservedConcurrency = own ? (own.sizing.reservedConcurrency ?? reserved) : reservedFor(handler);
      const sizing = own?.sizing ?? props.functions?.[handler] ?? {};
      // A step's deadline is its function's timeout: tell the steps that keep one a timeout of the team's.
      const stepTimeout =
        sizing.timeout !== undefined && (handler === "callModel" || handler === "runTool")
          ? { [NAMES.stepTimeoutSeconds]: String(sizing.timeout.toSeconds()) }
          : {};
      return new RunlogFunction(this, own?.id ?? handler[0]!.toUpperCase() + handler.slice(1), {
        handler,
        timeout: sizing.timeout ?? DEFAULT_SIZING[handler].timeout,
        memorySize: sizing.memorySize ?? DEFAULT_SIZING[handler].memorySize,
        ...(sizing.architecture ? { architecture: sizing.architecture } : {}),
        agentsModule,
        bundlingRoot: root,
        // The team's variables first: runlog's own are never overridden (validateFunctionsSizing refuses them too).
        environment: { ...sizing.environment, ...common, ...environment, ...stepTimeout },
        logRetention,
        ...network,
        ...(reservedConcurrency === undefined ? {} : { reservedConcurrency }),
      }).fn;
    };

    const callModel = make("callModel", secret ? { [NAMES.modelKeySecretArn]: secret.secretArn } : {});
    const steps = {
      callModel,
      runTool: make("runTool"),
      recordModelFailure: make("recordModelFailure"),
      finish: make("finish"),
      handoff: make("handoff"),
    };
    if (secret) grantSecretValue(callModel, secret);
    if (props.bedrock) grantBedrock(callModel, props.bedrock);
    // Every step appends: Finish too, the `paused` marker of a run it rests waiting for approval.
    // Each tool group's calls run in a RunTool function of its own, with a role of its own.
    this.groups = Object.fromEntries(
      Object.entries(props.toolGroups ?? {}).map(([name, { tools: _, ...sizing }]) => [
        name,
        make("runTool", {}, { id: groupTaskName(name), sizing }),
      ]),
    );
    for (const fn of [...Object.values(steps), ...Object.values(this.groups)]) grantStore(fn, this.table);

    const machine = new RunStateMachine(this, "Run", {
      deployment: this.deployment,
      // Published versions, so a deploy does not change the code under a running execution.
      tasks: {
        CallModel: steps.callModel.currentVersion,
        RunTool: steps.runTool.currentVersion,
        RecordModelFailure: steps.recordModelFailure.currentVersion,
        Finish: steps.finish.currentVersion,
        Handoff: steps.handoff.currentVersion,
      },
      timeout: executionTimeout,
      logRetention,
      ...(props.stateMachineLogs === undefined ? {} : { logs: props.stateMachineLogs }),
      taskTimeoutSeconds: {
        CallModel: steps.callModel.timeout!.toSeconds(),
        RunTool: steps.runTool.timeout!.toSeconds(),
        RecordModelFailure: steps.recordModelFailure.timeout!.toSeconds(),
        Finish: steps.finish.timeout!.toSeconds(),
        Handoff: steps.handoff.timeout!.toSeconds(),
      },
      ...(props.concurrency?.maxToolCalls === undefined
        ? {}
        : { maxToolCalls: props.concurrency.maxToolCalls }),
      toolGroups: Object.fromEntries(
        Object.entries(this.groups).map(([name, fn]) => [
          name,
          {
            tools: props.toolGroups![name]!.tools,
            version: fn.currentVersion,
            timeoutSeconds: fn.timeout!.toSeconds(),
          },
        ]),
      ),
    });
    this.stateMachine = machine.stateMachine;
    // Handoff starts the next execution of the machine that invokes it: a policy of its own, apart
    // from the role's default one, so the function does not wait on the machine that waits on it.
    grantExecutionsApart(this, HANDOFF_POLICY_ID, steps.handoff.role!, this.stateMachine);
    // A sub-agent call starts its child's execution (RunTool, a group's too), and a child's end
    // resumes its parent (Finish): executions of this machine, so a policy apart for the same reason.
    const childStarters = [steps.runTool, steps.finish, ...Object.values(this.groups)].map((fn) => fn.role!);
    grantExecutionsApart(this, SUBAGENT_POLICY_ID, childStarters, this.stateMachine);

    const control = { [NAMES.stateMachineArn]: this.stateMachine.stateMachineArn };
    const starters = {
      startRun: make("startRun", { ...control, ...startRunEnvironment(props) }),
      // Sends, decisions and cancels from events: a send or the last decision resumes the run.
      steerRun: make("steerRun", { ...control, ...trustedSourcesEnvironment(props) }),
      resume: make("resume", {
        ...control,
        ...modelsEnvironment(props),
        ...trustedSourcesEnvironment(props),
      }),
      sweeper: make("sweeper", {
        ...control,
        ...(props.redrive ? { [NAMES.redriveAfterMs]: String(props.redrive.after.toMilliseconds()) } : {}),
      }),
    };
    this.deadLetters = new Queue(this, "DeadLetters", {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    for (const [name, fn] of Object.entries(starters)) {
      grantStore(fn, this.table, { createsRuns: name === "startRun", listByStatus: name === "sweeper" });
      grantExecutions(fn, this.stateMachine);
      fn.configureAsyncInvoke({ retryAttempts: 2, onFailure: deadLetterDestination(this.deadLetters) });
    }
    // A runlog.CancelRun stops the execution holding the run, as the API's cancel does.
    grantStopExecutions(starters.steerRun, this.stateMachine);
    const api = make("api", { ...control, ...apiEnvironment(props) });
    grantStore(api, this.table, {
      createsRuns: true,
      listByStatus: true,
      listForks: true,
      listByOwner: true,
    });
    grantExecutions(api, this.stateMachine);
    // The API cancels runs, and a cancel stops the execution holding the run.
    grantStopExecutions(api, this.stateMachine);
    // What a person invokes to send the dead letters back to the functions that could not take them.
    const targets = Object.values(starters);
    const redriveDeadLetters = make("redriveDeadLetters", {
      [NAMES.deadLettersUrl]: this.deadLetters.queueUrl,
      [NAMES.redriveTargets]: Fn.join(
        ",",
        targets.map((fn) => fn.functionArn),
      ),
    });
    grantRedrive(redriveDeadLetters, this.deadLetters, targets);
    this.httpApi = new RunlogHttpApi(this, "HttpApi", {
      handler: api,
      logRetention,
      ...(props.auth ? { jwt: props.auth.jwt } : {}),
      ...(props.throttle ? { throttle: props.throttle } : {}),
    }).api;

    this.eventBus = props.eventBus ?? this.ownBus(props);
    const publishLifecycle = make("publishLifecycle", {
      [NAMES.eventBusName]: this.eventBus.eventBusName,
      [NAMES.apiUrl]: this.httpApi.apiEndpoint,
    });
    this.lifecycle = this.table.tableStreamArn
      ? new LifecyclePublishing(this, "Lifecycle", {
          table: this.table,
          publisher: publishLifecycle,
          bus: this.eventBus,
        })
      : undefined;
    if (!this.lifecycle) {
      Annotations.of(this).addWarningV2(
        "runlog:lifecycle",
        "table: the given table has no stream, so no lifecycle events are published; enable one (any view type)",
      );
    }
    this.functions = { ...steps, ...starters, api, redriveDeadLetters, publishLifecycle };
    // Alarmed and charted as the other functions are: runToolPayments beside runTool.
    const watched = {
      ...this.functions,
      ...Object.fromEntries(
        Object.entries(this.groups).map(([name, fn]) => [`run${groupTaskName(name).slice(3)}`, fn]),
      ),
    };
    new Triggers(this, "Triggers", {
      stateMachine: this.stateMachine,
      ...starters,
      deadLetters: this.deadLetters,
      ...(props.sweepEvery ? { sweepEvery: props.sweepEvery } : {}),
      eventBus: this.eventBus,
      ...(props.trustedEventSources ? { trustedEventSources: props.trustedEventSources } : {}),
    });
    this.alarms =
      props.alarms === false
        ? []
        : new RunlogAlarms(this, "Alarms", {
            functions: watched,
            stateMachine: this.stateMachine,
            deadLetters: this.deadLetters,
            ...(this.lifecycle ? { lifecycleDeadLetters: this.lifecycle.deadLetters } : {}),
            table: this.table,
            httpApi: this.httpApi,
            deployment: this.deployment,
            ...(props.sweepEvery ? { sweepEvery: props.sweepEvery } : {}),
            ...(props.alarms?.topic ? { topic: props.alarms.topic } : {}),
            ...(props.alarms?.runbookBaseUrl ? { runbookBaseUrl: props.alarms.runbookBaseUrl } : {}),
          }).alarms;
    this.dashboard =
      props.dashboard === false
        ? undefined
        : new RunlogDashboard(this, "Dashboard", {
            functions: watched,
            stateMachine: this.stateMachine,
            deadLetters: this.deadLetters,
            deployment: this.deployment,
          }).dashboard;
    this.encryptionKeys = applyEncryption(this, props, this.table);
    // The cdk-nag findings runlog's design accepts, each with its reason, so a stack checked by cdk-nag passes.
    acceptedFindings(this, Object.values(this.groups));
  }

  /**
   * Publish what clients read as stack outputs: `HttpApiUrl`, `TableName`, `StateMachineArn`,
   * `EventBusName`, `EventBusArn`, `DeadLettersUrl`, `Region` (`runlog config from-stack` reads them).
   */
  addOutputs(options: RunlogOutputsOptions = {}): Record<string, CfnOutput> {
    return addRunlogOutputs(this, this, options);
  }

  /** A tool group's function and role (`toolGroups`), so a team grants what that group's tools need to it alone. */
  toolGroup(name: string): ToolGroup {
    const fn = this.groups[name];
    if (!fn) {
      const known = Object.keys(this.groups);
      throw new RunlogPropsError(
        "toolGroups",
        `has no group ${JSON.stringify(name)}: ${known.length === 0 ? "none were given" : `the groups are ${known.join(", ")}`}`,
      );
    }
    return { function: fn, role: fn.role! };
  }

  /** This deployment's own bus, named after it, which only `eventPublishers` (this account) may put events on. */
  private ownBus(props: RunlogProps): IEventBus {
    const bus = new EventBus(this, "Events", { eventBusName: busName(this.deployment) });
    bus.addToResourcePolicy(
      new PolicyStatement({
        sid: "RunlogEventPublishers",
        principals: props.eventPublishers ?? [new AccountRootPrincipal()],
        actions: ["events:PutEvents"],
        resources: [bus.eventBusArn],
      }),
    );
    // CDK's classes meet their interfaces only without exactOptionalPropertyTypes.
    return bus as IEventBus;
  }
}
