import { Annotations, type CfnOutput, Duration, Fn } from "aws-cdk-lib";
import type { HttpApi } from "aws-cdk-lib/aws-apigatewayv2";
import type { Alarm, Dashboard } from "aws-cdk-lib/aws-cloudwatch";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import { EventBus, type IEventBus } from "aws-cdk-lib/aws-events";
import { AccountRootPrincipal, PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import type { Queue } from "aws-cdk-lib/aws-sqs";
import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import { Construct } from "constructs";
import { NAMES } from "../lib/runtime/config.ts";
import { EXECUTION_TIMEOUT_SECONDS } from "../lib/workflow/timeouts.ts";
import { groupTaskName } from "../lib/workflow/toolGroups.ts";
import { checkAgentsModuleExports } from "./agentsModuleExports.ts";
import { grantBedrock } from "./bedrock.ts";
import { busName, deploymentName } from "./deployment.ts";
import { apiEnvironment } from "./edgeProps.ts";
import { applyEncryption, type RunlogEncryptionKeys } from "./encryption.ts";
import { functionMaker, STEPS } from "./functionMaker.ts";
import {
  grantExecutions,
  grantRedrive,
  grantSecretValue,
  grantStopExecutions,
  grantStore,
} from "./grants.ts";
import { RunlogHttpApi } from "./httpApi.ts";
import { LifecyclePublishing } from "./lifecycle.ts";
import { logRetentionOf } from "./logRetention.ts";
import { modelKey } from "./modelKey.ts";
import { monitoring } from "./monitoring.ts";
import { acceptedFindings } from "./nag.ts";
import { RunlogNetwork } from "./network.ts";
import { addRunlogOutputs, type RunlogOutputsOptions } from "./outputs.ts";
import { checkOwnTable } from "./ownTable.ts";
import { agentsModulePath, bundlingRoot, type RunlogProps, RunlogPropsError } from "./props.ts";
import { propsWarnings, validateProps } from "./propsValidation.ts";
import { runLoop } from "./runLoop.ts";
import type { HandlerName } from "./runlogFunction.ts";
import { makeStarters } from "./starters.ts";
import { RunlogTable } from "./table.ts";
import type { ToolGroup } from "./toolGroups.ts";
import { Triggers } from "./triggers.ts";

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
   * metrics' `deployment` dimension, and every name the construct gives (the bus, the state
   * machine's log group, the alarms, the HTTP API).
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
    const projectRoot = bundlingRoot(agentsModule, props.projectRoot);
    checkAgentsModuleExports(agentsModule, projectRoot);
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
    this.network = props.vpc ? new RunlogNetwork(this, "Network", { ...props, vpc: props.vpc }) : undefined;
    const secret = props.modelKeySecret === undefined ? undefined : modelKey(this, props.modelKeySecret);
    const make = functionMaker(this, props, {
      table: this.table,
      deployment: this.deployment,
      executionTimeout,
      agentsModule,
      projectRoot,
      logRetention,
      network: this.network,
    });

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

    this.stateMachine = runLoop(this, props, {
      deployment: this.deployment,
      steps,
      groups: this.groups,
      executionTimeout,
      logRetention,
    });

    const { starters, deadLetters } = makeStarters(this, make, props, {
      table: this.table,
      stateMachine: this.stateMachine,
    });
    this.deadLetters = deadLetters;
    const control = { [NAMES.stateMachineArn]: this.stateMachine.stateMachineArn };
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
      // Named after the deployment, so two deployments' APIs are told apart in the console.
      name: `${this.deployment}-HttpApi`,
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
    new Triggers(this, "Triggers", {
      stateMachine: this.stateMachine,
      ...starters,
      deadLetters: this.deadLetters,
      ...(props.sweepEvery ? { sweepEvery: props.sweepEvery } : {}),
      eventBus: this.eventBus,
      ...(props.trustedEventSources ? { trustedEventSources: props.trustedEventSources } : {}),
    });
    const watchers = monitoring(this, props, {
      functions: this.functions,
      groups: this.groups,
      stateMachine: this.stateMachine,
      deadLetters: this.deadLetters,
      lifecycle: this.lifecycle,
      table: this.table,
      httpApi: this.httpApi,
      deployment: this.deployment,
    });
    this.alarms = watchers.alarms;
    this.dashboard = watchers.dashboard;
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
