import { Stack, type StackProps } from "aws-cdk-lib";
import type { HttpApi } from "aws-cdk-lib/aws-apigatewayv2";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import { EventBus } from "aws-cdk-lib/aws-events";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import type { Queue } from "aws-cdk-lib/aws-sqs";
import type { StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import type { Construct } from "constructs";
import type { RunlogProps } from "./props.ts";
import { RunlogPropsError } from "./propsError.ts";
import { describeValue, type EveryKeyListed } from "./propsShape.ts";
import { Runlog } from "./runlog.ts";
import { functionFile, type HandlerName } from "./runlogFunction.ts";

export interface RunlogStackProps extends StackProps, Omit<RunlogProps, "agentsModule" | "eventBus"> {
  /** The module exporting `agents: Record<string, AgentFactory>`, absolute or relative to the working directory. @default runlog's functions/agents (the demo agent) */
  agentsModule?: string;
  /** The name of an existing bus runlog.StartRun and runlog.ResumeRun events arrive on. @default a bus of the stack's own (output EventBusName) */
  eventBusName?: string;
}

/** The keys of StackProps: the stack's own, not passed on to the construct (which refuses unknown props). */
const STACK_PROP_NAMES = [
  "description",
  "env",
  "stackName",
  "tags",
  "notificationArns",
  "synthesizer",
  "terminationProtection",
  "analyticsReporting",
  "crossRegionReferences",
  "permissionsBoundary",
  "suppressTemplateIndentation",
  "propertyInjectors",
] as const satisfies readonly (keyof StackProps)[];
// A StackProps key aws-cdk-lib adds and the list above lacks fails the build here, not a user's synth.
const everyStackPropListed: EveryKeyListed<StackProps, typeof STACK_PROP_NAMES> = true;
void everyStackPropListed;

/**
 * runlog on AWS as a stack of its own: one `Runlog` construct. It takes the
 * construct's props (an event bus by name, the agents module defaulting to
 * the demo) and keeps its resources' logical ids, so a deployed stack updates
 * in place.
 */
export class RunlogStack extends Stack {
  readonly runlog: Runlog;
  readonly table: ITable;
  readonly stateMachine: StateMachine;
  readonly functions: Readonly<Record<HandlerName, LambdaFunction>>;
  /** Events and async invocations that failed after their retries. */
  readonly deadLetters: Queue;
  /** The HTTP API: IAM-authorized routes served by the `api` function. */
  readonly httpApi: HttpApi;

  constructor(scope: Construct, id: string, props: RunlogStackProps = {}) {
    const { agentsModule, eventBusName, ...others } = props;
    super(scope, id, props);
    if (eventBusName !== undefined && (typeof eventBusName !== "string" || eventBusName.trim() === "")) {
      throw new RunlogPropsError("eventBusName", `must be a bus's name, got ${describeValue(eventBusName)}`);
    }
    // Construct props pass through; StackProps keys are the stack's own.
    const rest = Object.fromEntries(
      Object.entries(others).filter(([key]) => !(STACK_PROP_NAMES as readonly string[]).includes(key)),
    ) as Omit<RunlogProps, "agentsModule" | "eventBus">;
    // "Default" leaves the construct out of logical ids: the resources keep those they had as the stack's own.
    this.runlog = new Runlog(this, "Default", {
      ...rest,
      agentsModule: agentsModule ?? functionFile("agents"),
      ...(eventBusName ? { eventBus: EventBus.fromEventBusName(this, "Bus", eventBusName) } : {}),
    });
    this.table = this.runlog.table;
    this.stateMachine = this.runlog.stateMachine;
    this.functions = this.runlog.functions;
    this.deadLetters = this.runlog.deadLetters;
    this.httpApi = this.runlog.httpApi;
    // What clients need (cdk/README.md): the API, the run log, the loop, the bus, the dead letters, the region.
    this.runlog.addOutputs();
  }
}
