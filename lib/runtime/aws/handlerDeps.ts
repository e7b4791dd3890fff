import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { LambdaClient } from "@aws-sdk/client-lambda";
import type { SFNClient } from "@aws-sdk/client-sfn";
import type { SQSClient } from "@aws-sdk/client-sqs";
import { awsClientConfig } from "../../adapters/aws/clientConfig.ts";
import { METRICS_DEPLOYMENT } from "../../adapters/aws/metrics.ts";
import type {
  RedriveDeadLettersOptions,
  RedriveDeadLettersReport,
} from "../../adapters/deadLetters/redrive.ts";
import { type AgentFactory, agentRegistry } from "../../agents/registry.ts";
import { checkPrices, type PriceTable } from "../../core/budget.ts";
import { PermanentError } from "../../core/errors.ts";
import type { PrincipalPolicy } from "../../core/principal.ts";
import type { ModelProviders, ModelResolver } from "../../ports/model.ts";
import type { Ids } from "../../ports/runtime.ts";
import type { ControlDeps, StepDeps } from "../../steps/deps.ts";
import { autoRedrivePolicy, type RedriveOptions } from "../../steps/redrive.ts";
import { retentionMs } from "../../steps/retention.ts";
import type { SweepOptions } from "../../steps/sweepPolicy.ts";
import { NAMES } from "../config.ts";
import { allowedModels } from "../modelAllow.ts";
import { modelResolver, type OpenAIEndpointConfig, openaiEndpoint } from "../models.ts";
import { type HandlerConfig, readConfig } from "../readConfig.ts";
import { made } from "./clientObservers.ts";
import { stateMachineControlDeps, tableStepDeps } from "./controlDeps.ts";
import { modelClientOptions } from "./modelClient.ts";
import type { ModelKey } from "./modelKey.ts";
import { powertools } from "./powertools.ts";

/** The step deps every function has, and the control deps of those that start executions. */
export interface AwsDeps {
  steps: StepDeps;
  /** How a step function watches for a cancel while it runs (see functions/handler.ts). */
  cancelWatch: { intervalMs: number; blindMs: number };
  /** Read the model key again once its cached copy is old, so a rotated key is used; nothing without one. */
  refreshModelKey(): Promise<void>;
  /** PermanentError for a function deployed without a state machine (its variable unset). */
  control(): ControlDeps & { ids: Ids };
  /**
   * Control deps starting executions of the given state machine: for the Handoff task, which
   * learns it from its execution (a reference in its environment would make a cycle in the stack).
   */
  controlFor(stateMachineArn: string): ControlDeps & { ids: Ids };
  /** The sweeper's automatic redrive after a quiet period (config.redriveAfterMs); absent: off. */
  redrive?: RedriveOptions;
  /**
   * Send the dead-letter queue's letters back to this deployment's functions (config.deadLettersUrl,
   * config.redriveTargets); PermanentError in a function deployed without them.
   */
  redriveDeadLetters(options: RedriveDeadLettersOptions): Promise<RedriveDeadLettersReport>;
  /** Who the Api function's callers are, and which are admins (config.auth and the rest). */
  principalPolicy: PrincipalPolicy;
  /** The event sources whose `detail.owner` a StartRun event's run gets (config.trustedEventSources). */
  trustedEventSources: readonly string[];
}

/**
 * How the AWS sweeper sweeps: also `interrupted` runs, because a failed
 * execution's Finish leaves its run there, and the failure event's resume
 * skips a run whose backoff has not passed.
 */
export const AWS_SWEEP: SweepOptions = { statuses: ["running", "interrupted"] };

/**
 * How long a step function's looks for a cancel may keep failing before the step stops (and
 * Step Functions retries it, watching anew): a minute of failed reads, past the SDK's own retries.
 */
const CANCEL_BLIND_MS = 60_000;

export { type AwsClient, observeClients } from "./clientObservers.ts";

/**
 * How long one AWS request may take, and how often the SDK tries it: a hung connection fails fast
 * and is retried (by the SDK, then the state machine), instead of holding the step until its
 * function times out.
 */
const AWS_CLIENT = awsClientConfig();

/**
 * What a function is configured with (cdk/ sets the variables; lib/runtime/config.ts says which),
 * read once per cold start. The model key is never one of them, only its secret.
 */
export function readFunctionConfig(env: NodeJS.ProcessEnv): HandlerConfig {
  return readConfig(env, { for: "handlers", warn: (message) => powertools().logger.warn(message) });
}

/**
 * Models with `openai:` specs taking the key last read from Secrets Manager (`apiKey` gives
 * it). A function without the secret can still name and check openai models; calling one fails
 * clearly. The OpenAI SDK loads on a model's first call (lib/runtime/lazyModels.ts), so the
 * functions that never call a model (Finish, Sweeper, Api …) do not evaluate it on a cold start.
 */
function awsModels(
  apiKey: (() => Promise<string>) | undefined,
  providers: ModelProviders | undefined,
  config: OpenAIEndpointConfig,
): ModelResolver {
  return modelResolver({
    openai: { ...modelClientOptions(apiKey), ...openaiEndpoint(config) },
    ...(providers === undefined ? {} : { providers }),
  });
}

/**
 * The model key in its secret, read now. Secrets Manager's client and Powertools Parameters are
 * loaded here, by a function whose deployment names a secret, and by no other.
 */
async function readModelKey(secretArn: string): Promise<ModelKey> {
  const [{ ModelKey }, { SecretsProvider }, { SecretsManagerClient }] = await Promise.all([
    import("./modelKey.ts"),
    import("@aws-lambda-powertools/parameters/secrets"),
    import("@aws-sdk/client-secrets-manager"),
  ]);
  const key = new ModelKey(
    new SecretsProvider({ awsSdkV3Client: made(new SecretsManagerClient(AWS_CLIENT)) }),
    secretArn,
  );
  await key.refresh();
  return key;
}

/**
 * Build every dependency from the environment: the clients (traced by X-Ray where tracing is
 * on), the store, the models (reading the key now, so a missing secret fails the cold start),
 * serving `agents` and calling the models of `providers` beside the built-in ones (the functions
 * pass those of their agents module, `#agents`: functions/deps.ts).
 */
export async function buildDeps(
  env: NodeJS.ProcessEnv,
  agents: Readonly<Record<string, AgentFactory>>,
  providers?: ModelProviders,
  /** The agents module's `prices` (model prices by spec), for runs with a `maxCostUsd` limit. */
  prices?: PriceTable,
): Promise<AwsDeps> {
  const config = readFunctionConfig(env);
  // Every metric this instance emits from now on names its deployment (cdk reads them so).
  if (config.deployment !== undefined) {
    powertools().metrics.setDefaultDimensions({ [METRICS_DEPLOYMENT]: config.deployment });
  }
  const retention = retentionMs(config.retentionDays);
  const modelKey =
    config.modelKeySecretArn === undefined ? undefined : await readModelKey(config.modelKeySecretArn);
  const steps = tableStepDeps({
    client: made(new DynamoDBClient(AWS_CLIENT)),
    tableName: config.tableName,
    agents: agentRegistry({ dataDir: config.dataDir }, agents),
    // Only the functions that start and resume runs are given an allow list (cdk/): see allowedModels.
    models: allowedModels(awsModels(modelKey?.current, providers, config), config.modelsAllow),
    ...(config.stepsPerExecution === undefined ? {} : { stepsPerExecution: config.stepsPerExecution }),
    ...(config.stepTimeoutSeconds === undefined ? {} : { stepTimeoutSeconds: config.stepTimeoutSeconds }),
    ...(retention === undefined ? {} : { retentionMs: retention }),
    ...(config.statusShards === undefined ? {} : { statusShards: config.statusShards }),
    ...(prices === undefined ? {} : { prices: checkPrices(prices, "the agents module's prices") }),
  });
  // Made by the first start, stop or describe of an execution: most invocations of most functions
  // (every model call and tool call) make none, and so never load the SDK's Step Functions client.
  let sfn: Promise<SFNClient> | undefined;
  const sfnClient = () => {
    sfn ??= import("@aws-sdk/client-sfn").then(({ SFNClient }) => made(new SFNClient(AWS_CLIENT)));
    return sfn;
  };
  const controlFor = (stateMachineArn: string) =>
    stateMachineControlDeps(steps, {
      client: sfnClient,
      stateMachineArn,
      leaseMs: config.leaseMs,
      ...(config.maxRunningPerOwner === undefined ? {} : { maxRunningPerOwner: config.maxRunningPerOwner }),
    });
  const stateMachineArn = config.stateMachineArn;
  const control = stateMachineArn === undefined ? undefined : controlFor(stateMachineArn);
  const { deadLettersUrl, redriveTargets } = config;
  let sqs: SQSClient | undefined;
  let lambda: LambdaClient | undefined;
  return {
    steps,
    cancelWatch: { intervalMs: config.cancelPollMs, blindMs: CANCEL_BLIND_MS },
    async refreshModelKey() {
      await modelKey?.refresh();
    },
    control() {
      if (!control)
        throw new PermanentError(`this function starts no executions: ${NAMES.stateMachineArn} is not set`);
      return control;
    },
    controlFor,
    principalPolicy: {
      auth: config.auth,
      ...(config.tenantClaim === undefined ? {} : { tenantClaim: config.tenantClaim }),
      ...(config.adminScope === undefined ? {} : { adminScope: config.adminScope }),
      ...(config.adminPrincipals === undefined ? {} : { adminPrincipals: config.adminPrincipals }),
    },
    trustedEventSources: config.trustedEventSources ?? [],
    async redriveDeadLetters(options) {
      if (deadLettersUrl === undefined || redriveTargets === undefined) {
        throw new PermanentError(
          `this function redrives no dead letters: ${NAMES.deadLettersUrl} and ${NAMES.redriveTargets} must both be set`,
        );
      }
      // Loaded here, by the one function that redrives: the others never evaluate these clients.
      const [{ LambdaClient }, { SQSClient }, { redriveDeadLetters }] = await Promise.all([
        import("@aws-sdk/client-lambda"),
        import("@aws-sdk/client-sqs"),
        import("../../adapters/deadLetters/redrive.ts"),
      ]);
      sqs ??= made(new SQSClient(AWS_CLIENT));
      lambda ??= made(new LambdaClient(AWS_CLIENT));
      return redriveDeadLetters({ sqs, lambda, queueUrl: deadLettersUrl, targets: redriveTargets }, options);
    },
    ...(config.redriveAfterMs === undefined ? {} : { redrive: autoRedrivePolicy(config.redriveAfterMs) }),
  };
}
