import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DescribeStateMachineCommand, SFNClient } from "@aws-sdk/client-sfn";
import { awsClientConfig } from "../../adapters/aws/clientConfig.ts";
import { isMissingCredentials } from "../../adapters/aws/errors.ts";
import { checkTable } from "../../adapters/dynamodb/table.ts";
import { toSfnError } from "../../adapters/stepfunctions/index.ts";
import type { PriceTable } from "../../core/budget.ts";
import { InvalidInputError } from "../../core/errors.ts";
import type { ModelResolver } from "../../ports/model.ts";
import type { Ids } from "../../ports/runtime.ts";
import type { AgentRegistry } from "../../ports/tool.ts";
import type { ControlDeps } from "../../steps/deps.ts";
import { AWS_REQUEST, EXECUTION_TIMEOUT_SECONDS, leaseMsFor } from "../../workflow/timeouts.ts";
import { stateMachineControlDeps, tableStepDeps } from "./controlDeps.ts";

/** A deployed stack as its outputs name it (TableName, StateMachineArn). */
export interface DeploymentOptions {
  tableName: string;
  stateMachineArn: string;
  /** The region of both. */
  region: string;
  agents: AgentRegistry;
  models: ModelResolver;
  /** Model prices by spec, for starts and resumes with a `maxCostUsd` limit. @default none */
  prices?: PriceTable;
}

export interface OpenDeployment {
  deps: ControlDeps & { ids: Ids };
  /** One line saying where the runs are. */
  where: string;
  close(): Promise<void>;
}

/** Which of a deployment's parts could not be used: the table or the state machine. */
export class DeploymentError extends InvalidInputError {
  constructor(
    readonly part: "table" | "stateMachine" | "credentials",
    message: string,
    options?: { cause: unknown },
  ) {
    super(message, options);
  }
}

/** Reached from outside AWS (this machine's own network), so with the longer request timeout. */
const CLIENT = awsClientConfig(AWS_REQUEST.outsideAwsRequestMs);

const NO_CREDENTIALS =
  "no AWS credentials found: set AWS_PROFILE (after `aws sso login` or `aws configure`), " +
  "or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY";

/**
 * Open a deployed stack with the caller's own AWS credentials (the SDK's default chain): its
 * table through the DynamoDB store and its state machine through the Step Functions orchestrator.
 * Both are checked first (the table's keys and index, the state machine's existence), so a wrong
 * name fails here, named, rather than on the first request.
 */
export async function openDeployment(options: DeploymentOptions): Promise<OpenDeployment> {
  const dynamodb = new DynamoDBClient({ ...CLIENT, region: options.region });
  const sfn = new SFNClient({ ...CLIENT, region: options.region });
  const close = async () => {
    dynamodb.destroy();
    sfn.destroy();
  };
  try {
    await checked("table", () => checkTable(dynamodb, options.tableName));
    const timeoutSeconds = await checked("stateMachine", () =>
      executionTimeoutOf(sfn, options.stateMachineArn),
    );
    const steps = tableStepDeps({
      client: dynamodb,
      tableName: options.tableName,
      agents: options.agents,
      models: options.models,
      ...(options.prices === undefined ? {} : { prices: options.prices }),
    });
    const deps = stateMachineControlDeps(steps, {
      client: sfn,
      stateMachineArn: options.stateMachineArn,
      // The lease the stack's functions claim (cdk/runlog.ts), so a resume here claims the same.
      leaseMs: leaseMsFor(timeoutSeconds),
    });
    const where = `DynamoDB table ${options.tableName} and state machine ${options.stateMachineArn} (${options.region})`;
    return { deps, where, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Run a check of one part; a failure names that part, and missing credentials say how to give them. */
async function checked<T>(part: "table" | "stateMachine", check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (isMissingCredentials(error))
      throw new DeploymentError("credentials", NO_CREDENTIALS, { cause: error });
    throw new DeploymentError(part, error instanceof Error ? error.message : String(error), { cause: error });
  }
}

/** The state machine's TimeoutSeconds (cdk/ sets it from `executionTimeout`), else runlog's default. */
async function executionTimeoutOf(client: SFNClient, stateMachineArn: string): Promise<number> {
  let definition: string | undefined;
  try {
    ({ definition } = await client.send(new DescribeStateMachineCommand({ stateMachineArn })));
  } catch (error) {
    throw toSfnError(error, `describe state machine ${stateMachineArn}`);
  }
  const timeout =
    definition === undefined
      ? undefined
      : (JSON.parse(definition) as { TimeoutSeconds?: unknown }).TimeoutSeconds;
  return typeof timeout === "number" && timeout > 0 ? timeout : EXECUTION_TIMEOUT_SECONDS;
}
