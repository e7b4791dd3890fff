import type { HttpApi } from "aws-cdk-lib/aws-apigatewayv2";
import type { Alarm, Dashboard } from "aws-cdk-lib/aws-cloudwatch";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import type { Queue } from "aws-cdk-lib/aws-sqs";
import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import type { Construct } from "constructs";
import { groupTaskName } from "../lib/workflow/toolGroups.ts";
import { RunlogAlarms } from "./alarms.ts";
import { RunlogDashboard } from "./dashboard.ts";
import type { LifecyclePublishing } from "./lifecycle.ts";
import type { RunlogProps } from "./props.ts";

/** The parts of the deployment its alarms and dashboard watch. */
export interface MonitoringOptions {
  functions: Readonly<Record<string, LambdaFunction>>;
  /** Each tool group's RunTool function, by group name. */
  groups: Readonly<Record<string, LambdaFunction>>;
  stateMachine: StateMachine;
  deadLetters: Queue;
  lifecycle: LifecyclePublishing | undefined;
  table: ITable;
  httpApi: HttpApi;
  deployment: string;
}

/**
 * The deployment's CloudWatch alarms (none when `alarms: false`) and dashboard (none when
 * `dashboard: false`), on every function, the tool groups' too.
 */
export function monitoring(
  scope: Construct,
  props: Pick<RunlogProps, "alarms" | "dashboard" | "sweepEvery">,
  options: MonitoringOptions,
): { alarms: readonly Alarm[]; dashboard: Dashboard | undefined } {
  const { stateMachine, deadLetters, lifecycle, deployment } = options;
  // Alarmed and charted as the other functions are: runToolPayments beside runTool.
  const watched = {
    ...options.functions,
    ...Object.fromEntries(
      Object.entries(options.groups).map(([name, fn]) => [`run${groupTaskName(name).slice(3)}`, fn]),
    ),
  };
  const alarms =
    props.alarms === false
      ? []
      : new RunlogAlarms(scope, "Alarms", {
          functions: watched,
          stateMachine,
          deadLetters,
          ...(lifecycle ? { lifecycleDeadLetters: lifecycle.deadLetters } : {}),
          table: options.table,
          httpApi: options.httpApi,
          deployment,
          ...(props.sweepEvery ? { sweepEvery: props.sweepEvery } : {}),
          ...(props.alarms?.topic ? { topic: props.alarms.topic } : {}),
          ...(props.alarms?.runbookBaseUrl ? { runbookBaseUrl: props.alarms.runbookBaseUrl } : {}),
        }).alarms;
  const dashboard =
    props.dashboard === false
      ? undefined
      : new RunlogDashboard(scope, "Dashboard", {
          functions: watched,
          stateMachine,
          deadLetters,
          deployment,
        }).dashboard;
  return { alarms, dashboard };
}
