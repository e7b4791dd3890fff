import { Aws, CfnOutput, Stack } from "aws-cdk-lib";
import type { HttpApi } from "aws-cdk-lib/aws-apigatewayv2";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import type { IEventBus } from "aws-cdk-lib/aws-events";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import type { IStateMachine } from "aws-cdk-lib/aws-stepfunctions";
import type { IConstruct } from "constructs";
import { NAMES } from "../lib/runtime/config.ts";
import { OUTPUT_KEYS, type OutputField } from "../lib/runtime/deploymentOutputs.ts";
import { RunlogPropsError } from "./propsError.ts";

/** How `addOutputs` names the outputs. */
export interface RunlogOutputsOptions {
  /** Put before every output key (`Support` gives `SupportTableName` …), for a stack holding two Runlog constructs; letters and digits. @default none: `HttpApiUrl`, `TableName` … */
  prefix?: string;
  /** Export each output as `<stack name>-<key>`, for other stacks to import. @default false */
  exportNames?: boolean;
}

/** The parts of a deployment its clients need, as the Runlog construct holds them. */
export interface OutputSources {
  readonly httpApi: HttpApi;
  readonly table: ITable;
  readonly stateMachine: IStateMachine;
  readonly eventBus: IEventBus;
  readonly deadLetters: IQueue;
}

const DESCRIPTIONS: Record<OutputField, string> = {
  apiUrl: "runlog: the HTTP API's URL",
  tableName: `runlog: the run log table (${NAMES.table})`,
  stateMachineArn: `runlog: the run state machine (${NAMES.stateMachine})`,
  eventBusName: "runlog: the bus runlog.StartRun and runlog.ResumeRun events go to",
  eventBusArn: "runlog: the bus's ARN",
  deadLettersUrl: "runlog: the dead-letter queue",
  region: `runlog: the region of all of it (${NAMES.awsRegion})`,
};

/**
 * Publish what clients of the deployment read (the CLI's `runlog config from-stack`, the HTTP
 * API's callers, event senders) as stack outputs with fixed keys (lib/runtime/deploymentOutputs.ts).
 */
export function addRunlogOutputs(scope: IConstruct, from: OutputSources, options: RunlogOutputsOptions = {}) {
  const prefix = options.prefix ?? "";
  if (typeof prefix !== "string" || !/^[A-Za-z0-9]*$/.test(prefix)) {
    throw new RunlogPropsError(
      "prefix",
      `of addOutputs must be letters and digits, got ${JSON.stringify(prefix)}`,
    );
  }
  const stack = Stack.of(scope);
  const values: Record<OutputField, string> = {
    apiUrl: from.httpApi.apiEndpoint,
    tableName: from.table.tableName,
    stateMachineArn: from.stateMachine.stateMachineArn,
    eventBusName: from.eventBus.eventBusName,
    eventBusArn: from.eventBus.eventBusArn,
    deadLettersUrl: from.deadLetters.queueUrl,
    region: Aws.REGION,
  };
  return Object.fromEntries(
    (Object.keys(OUTPUT_KEYS) as OutputField[]).map((field) => {
      const key = `${prefix}${OUTPUT_KEYS[field]}`;
      // On the stack itself: its logical id is the key as written, whatever scope the construct is in.
      const output = new CfnOutput(stack, key, {
        value: values[field],
        description: DESCRIPTIONS[field],
        ...(options.exportNames ? { exportName: `${stack.stackName}-${key}` } : {}),
      });
      return [field, output];
    }),
  ) as Record<OutputField, CfnOutput>;
}
