import { CreateTableCommand, type CreateTableCommandInput, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { Synthesized } from "../../cdk/synth.ts";
import { createFakeOpenAI, type FakeReply } from "../../helpers/fakeOpenAI.ts";
import { startDynalite } from "../dynalite.ts";
import { AwsCallLog, stopServer } from "./awsCalls.ts";
import { startDynamoProxy } from "./dynamoProxy.ts";
import { busRules, EventBus, ownBusName } from "./eventBus.ts";
import { startFakeSecrets } from "./fakeSecrets.ts";
import { startFakeStepFunctions } from "./fakeStepFunctions.ts";
import { LambdaHost } from "./lambdaHost.ts";
import {
  ACCOUNT,
  deployedDefinition,
  type FunctionSpec,
  functionSpecs,
  type LocalResource,
  onlyResource,
  REGION,
  resolve,
} from "./template.ts";

export interface BundleStackOptions {
  /** The stack synthesized with `bundle: true` into `outdir`. */
  synthesized: Synthesized;
  outdir: string;
  /** The model key the stack's secret holds, and the only one the model server accepts. */
  apiKey: string;
  /** The model server's replies, one per request. */
  script: readonly FakeReply[];
  /** RUNLOG_DIR of every instance (Lambda's /tmp/runlog), where the fixture's tools leave their effects. */
  dataDir: string;
}

/** The local resources of the template's table, state machine and secret, named as CloudFormation would. */
function localResources(s: Synthesized, specs: readonly FunctionSpec[]) {
  const stack = s.stack.stackName;
  const table = onlyResource(s, "AWS::DynamoDB::Table");
  const machine = onlyResource(s, "AWS::StepFunctions::StateMachine");
  const tableName = `${stack}-${table.logicalId}`;
  const stateMachineArn = `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:${machine.logicalId}`;
  const resources: Record<string, LocalResource> = {
    [table.logicalId]: { ref: tableName, arn: `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${tableName}` },
    [machine.logicalId]: { ref: stateMachineArn, arn: stateMachineArn },
  };
  const secrets = Object.keys(s.template.findResources("AWS::SecretsManager::Secret"));
  for (const id of secrets) {
    const arn = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${stack}-${id}-AbCdEf`;
    resources[id] = { ref: arn, arn };
  }
  for (const spec of specs) {
    resources[spec.logicalId] = { ref: spec.functionName, arn: spec.arn };
    // A version's Ref is its qualified ARN (function:name:N).
    if (spec.versionLogicalId)
      resources[spec.versionLogicalId] = { ref: spec.versionArn!, arn: spec.versionArn! };
  }
  return {
    resources,
    table,
    machine,
    tableName,
    stateMachineArn,
    secretArns: secrets.map((id) => resources[id]!.ref),
  };
}

/** The table as the template declares it (keys, attributes, indexes, billing), created under its local name. */
function createTableInput(properties: Record<string, unknown>, tableName: string): CreateTableCommandInput {
  const { KeySchema, AttributeDefinitions, GlobalSecondaryIndexes, BillingMode } = properties;
  return {
    TableName: tableName,
    KeySchema,
    AttributeDefinitions,
    GlobalSecondaryIndexes,
    BillingMode,
  } as never;
}

/**
 * The synthesized stack running on this machine: each function's bundle from the cloud
 * assembly in Lambda-like child processes (handler and environment from the template), the
 * template's state machine definition executed by aws-local-stepfunctions behind a fake Step
 * Functions endpoint, the template's table in dynalite behind a recording proxy, its secret in
 * a fake Secrets Manager, its rules routing events on its own bus and the default one, and a
 * scripted model server.
 */
export async function startBundleStack(options: BundleStackOptions) {
  const { synthesized: s, outdir } = options;
  const specs = functionSpecs(s, outdir);
  const local = localResources(s, specs);
  const calls = new AwsCallLog();

  const dynalite = await startDynalite();
  const admin = new DynamoDBClient({
    endpoint: dynalite.endpoint,
    region: REGION,
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
  await admin.send(new CreateTableCommand(createTableInput(local.table.properties, local.tableName)));
  admin.destroy();
  const dynamo = await startDynamoProxy(dynalite.endpoint, calls);
  const secrets = await startFakeSecrets(
    Object.fromEntries(local.secretArns.map((arn) => [arn, options.apiKey])),
    calls,
  );
  const model = createFakeOpenAI({ apiKey: options.apiKey }).enqueue(...options.script);
  const modelServer = await model.start();

  let bus: EventBus | undefined;
  let host: LambdaHost | undefined;
  const sfn = await startFakeStepFunctions({
    stateMachineArn: local.stateMachineArn,
    definition: deployedDefinition(local.machine.properties, local.resources),
    invoke: (arn, input) => host!.invoke(arn, input),
    publish: (event) => bus!.put(event),
    log: calls,
  });
  host = new LambdaHost(specs, (spec) => ({
    PATH: process.env.PATH,
    ...Object.fromEntries(
      Object.entries(spec.environment).map(([key, value]) => [key, resolve(value, local.resources)]),
    ),
    // What Lambda itself sets.
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    AWS_LAMBDA_FUNCTION_NAME: spec.functionName,
    AWS_LAMBDA_FUNCTION_VERSION: spec.version,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(spec.memorySize),
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${spec.functionName}`,
    AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x",
    AWS_XRAY_CONTEXT_MISSING: "LOG_ERROR",
    AWS_XRAY_DAEMON_ADDRESS: "127.0.0.1:2000",
    LAMBDA_TASK_ROOT: spec.taskRoot,
    _HANDLER: spec.handler,
    TZ: ":UTC",
    // Credentials naming the function, so the fake endpoints know who called; no shared config files.
    AWS_ACCESS_KEY_ID: spec.name,
    AWS_SECRET_ACCESS_KEY: "local",
    AWS_CONFIG_FILE: "/nonexistent/aws-config",
    AWS_SHARED_CREDENTIALS_FILE: "/nonexistent/aws-credentials",
    // The endpoints, through the SDKs' own per-service variables and the OpenAI SDK's.
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_SFN: sfn.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    OPENAI_BASE_URL: modelServer.baseURL,
    RUNLOG_DIR: options.dataDir,
  }));
  bus = new EventBus(busRules(s, local.resources), (arn, event) => host!.invoke(arn, event));
  const lambdas = host;
  const events = bus;

  return {
    ...local,
    synthesized: s,
    specs,
    calls,
    host: lambdas,
    bus: events,
    /** The stack's own bus, where runlog events go (Step Functions' go to the default one). */
    eventBusName: ownBusName(s),
    sfn,
    model,
    /**
     * Deploy a new version of the stack (synthesized with `bundle: true` into the same outdir, the
     * same stateful resources): its task functions published as `version`, its definition naming
     * them for executions started from now on, its bundles behind every unqualified name; an
     * execution under way keeps its definition and so the versions it started with, as on AWS.
     */
    deploy(next: Synthesized, version: number): FunctionSpec[] {
      const nextSpecs = functionSpecs(next, outdir, version);
      for (const spec of nextSpecs) {
        if (spec.versionLogicalId) {
          local.resources[spec.versionLogicalId] = { ref: spec.versionArn!, arn: spec.versionArn! };
        }
      }
      const machine = onlyResource(next, "AWS::StepFunctions::StateMachine");
      if (
        machine.logicalId !== local.machine.logicalId ||
        onlyResource(next, "AWS::DynamoDB::Table").logicalId !== local.table.logicalId
      ) {
        throw new Error("the deploy would replace the table or the state machine");
      }
      lambdas.deploy(nextSpecs);
      sfn.deploy(deployedDefinition(machine.properties, local.resources));
      return nextSpecs;
    },
    /** Invoke a function's bundle directly (as API Gateway or a test would). */
    invoke: (fn: string, event: unknown) => lambdas.invoke(fn, event),
    /** Wait until no execution runs and no event is being delivered (one may start the other). */
    async idle(): Promise<void> {
      for (;;) {
        const waiting = [...sfn.running().map((e) => e.ended), ...events.pending()];
        if (waiting.length === 0) return;
        await Promise.all(waiting);
      }
    },
    async stop(): Promise<void> {
      for (const execution of sfn.running()) execution.stop("Test.Stopped", "the test ended");
      await lambdas.stop();
      await Promise.all([
        ...[dynamo, secrets, sfn].map(({ server }) => stopServer(server)),
        modelServer.close(),
      ]);
      await dynalite.stop();
    },
  };
}

export type BundleStack = Awaited<ReturnType<typeof startBundleStack>>;
