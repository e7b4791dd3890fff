import { App, Stack } from "aws-cdk-lib";
import { Match } from "aws-cdk-lib/assertions";
import { Code, Function as LambdaFunction, Runtime } from "aws-cdk-lib/aws-lambda";
import { AwsSolutionsChecks } from "cdk-nag";
import { beforeAll, describe, expect, it } from "vitest";
import { CREATE_ACTIONS, STORE_ACTIONS } from "../../cdk/grants.ts";
import { LOG_READ_ACTIONS } from "../../cdk/lifecycle.ts";
import type { HandlerName } from "../../cdk/runlogFunction.ts";
import {
  OWNER_INDEX,
  PARENT_INDEX,
  STATUS_SHARD_INDEX,
  tableDefinition,
} from "../../lib/adapters/dynamodb/table.ts";
import { TASK_TIMEOUT_SECONDS } from "../../lib/workflow/definition.ts";
import { allStates, synthesizedMachine } from "./machine.ts";
import { HANDLERS, permissionsOf, type Synthesized, synthesize } from "./synth.ts";

const SECRET = "runlog/model-key";
/** What Lambda's event source mapping reads the table's stream with, on the publisher's role. */
const STREAM_ACTIONS = [
  "dynamodb:ListStreams",
  "dynamodb:DescribeStream",
  "dynamodb:GetRecords",
  "dynamodb:GetShardIterator",
];
const BUS = "agents-bus";
let s: Synthesized;
beforeAll(() => {
  s = synthesize({ modelKeySecret: SECRET, eventBusName: BUS });
});

const permissions = (handler: HandlerName) =>
  permissionsOf(s.template, s.logicalId(s.runlog.functions[handler].role!));
type FunctionProps = { Timeout: number; Environment: { Variables: Record<string, unknown> } };
const functionProps = (handler: HandlerName) =>
  s.template.findResources("AWS::Lambda::Function")[s.functionIds[handler]]!.Properties as FunctionProps;

describe("the table", () => {
  it("has the layout every runlog store uses, billed on demand, with TTL and point-in-time recovery", () => {
    const layout = tableDefinition("x");
    expect(layout.GlobalSecondaryIndexes!.map((index) => index.IndexName)).toEqual([
      STATUS_SHARD_INDEX,
      PARENT_INDEX,
      OWNER_INDEX,
    ]);
    s.template.resourceCountIs("AWS::DynamoDB::Table", 1);
    s.template.hasResourceProperties("AWS::DynamoDB::Table", {
      BillingMode: "PAY_PER_REQUEST",
      KeySchema: layout.KeySchema,
      AttributeDefinitions: Match.arrayWith(layout.AttributeDefinitions!),
      GlobalSecondaryIndexes: layout.GlobalSecondaryIndexes!.map(({ IndexName, KeySchema }) => ({
        IndexName,
        KeySchema,
        Projection: { ProjectionType: "ALL" },
      })),
      TimeToLiveSpecification: { AttributeName: "expiresAt", Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    s.template.hasResource("AWS::DynamoDB::Table", { DeletionPolicy: "Retain" });
  });
});

describe("the functions", () => {
  it("are one Node.js 22 arm64 function per handler, traced, each with its own limits", () => {
    s.template.resourceCountIs("AWS::Lambda::Function", HANDLERS.length);
    for (const handler of HANDLERS) {
      expect(functionProps(handler), handler).toMatchObject({
        Runtime: "nodejs22.x",
        Architectures: ["arm64"],
        Handler: "index.handler",
        TracingConfig: { Mode: "Active" },
      });
      // No --enable-source-maps: a cold start does not decode the bundle's map (functions/observability/mappedStack.ts).
      expect(
        (functionProps(handler) as { Environment?: { Variables?: Record<string, unknown> } }).Environment
          ?.Variables?.NODE_OPTIONS,
        handler,
      ).toBeUndefined();
    }
    expect(functionProps("callModel").Timeout).toBe(TASK_TIMEOUT_SECONDS.CallModel);
    expect(functionProps("finish").Timeout).toBe(TASK_TIMEOUT_SECONDS.Finish);
    expect(functionProps("startRun").Timeout).toBe(30);
  });

  it("get the model key as a secret's ARN, and only callModel gets it", () => {
    for (const handler of HANDLERS) {
      const env = functionProps(handler).Environment.Variables as Record<string, unknown>;
      expect(env.TABLE_NAME, handler).toEqual({ Ref: s.logicalId(s.runlog.table) });
      expect(
        Object.keys(env).some((name) => /API_KEY|OPENAI/.test(name)),
        handler,
      ).toBe(false);
      expect("MODEL_KEY_SECRET_ARN" in env, handler).toBe(handler === "callModel");
      expect("STATE_MACHINE_ARN" in env, handler).toBe(
        ["startRun", "steerRun", "resume", "sweeper", "api"].includes(handler),
      );
    }
    expect(JSON.stringify(functionProps("callModel").Environment.Variables.MODEL_KEY_SECRET_ARN)).toContain(
      SECRET,
    );
  });
});

describe("least privilege", () => {
  it("lets every function use the table only as the store does: no Scan, no batch writes (listing: the index)", () => {
    for (const handler of HANDLERS) {
      const { actions } = permissions(handler);
      expect(actions.filter((a) => a.startsWith("dynamodb:")).sort(), handler).toEqual(
        [
          // The dead-letter redrive reads no runs: it hands letters back to the functions that do.
          // The lifecycle publisher reads the log and the table's stream, and writes nothing.
          ...(handler === "redriveDeadLetters"
            ? []
            : handler === "publishLifecycle"
              ? [...LOG_READ_ACTIONS, ...STREAM_ACTIONS]
              : STORE_ACTIONS),
          ...(handler === "startRun" || handler === "api" ? CREATE_ACTIONS : []),
          ...(handler === "sweeper" || handler === "api" ? ["dynamodb:Query"] : []),
        ].sort(),
      );
    }
  });

  it("gives the secret to callModel alone", () => {
    for (const handler of HANDLERS) {
      const secrets = permissions(handler).actions.filter((a) => a.startsWith("secretsmanager:"));
      if (handler === "callModel") expect(secrets).toContain("secretsmanager:GetSecretValue");
      else expect(secrets, handler).toEqual([]);
    }
  });

  it("lets only the functions that start executions touch Step Functions, on this state machine, and only those that cancel stop one", () => {
    const machine = s.logicalId(s.runlog.stateMachine);
    for (const handler of HANDLERS) {
      const { actions, resources } = permissions(handler);
      const states = actions.filter((a) => a.startsWith("states:")).sort();
      if (handler === "api" || handler === "steerRun") {
        // They cancel runs too, and a cancel stops the execution holding the run.
        expect(states, handler).toEqual([
          "states:DescribeExecution",
          "states:StartExecution",
          "states:StopExecution",
        ]);
        expect(resources, handler).toContainEqual({ Ref: machine });
      } else if (["startRun", "resume", "sweeper", "handoff", "runTool", "finish"].includes(handler)) {
        // RunTool starts a sub-agent's child run, Finish resumes a child's parent (lib/steps/subagents/).
        expect(states, handler).toEqual(["states:DescribeExecution", "states:StartExecution"]);
        expect(resources, handler).toContainEqual({ Ref: machine });
      } else expect(states, handler).toEqual([]);
    }
    expect(permissions("runTool").actions.every((a) => /^(logs|xray|dynamodb|states):/.test(a))).toBe(true);
  });

  it("serves the HTTP API from the api function, every route behind IAM authorization, with access logs", () => {
    s.template.resourceCountIs("AWS::ApiGatewayV2::Api", 1);
    s.template.hasResourceProperties("AWS::ApiGatewayV2::Api", { ProtocolType: "HTTP" });
    const routes = Object.values(s.template.findResources("AWS::ApiGatewayV2::Route")).map(
      (r) => r.Properties as { RouteKey: string; AuthorizationType: string },
    );
    expect(routes.map((r) => r.RouteKey).sort()).toEqual([
      "ANY /replays/{proxy+}",
      "ANY /runs",
      "ANY /runs/{proxy+}",
    ]);
    for (const route of routes) expect(route.AuthorizationType, route.RouteKey).toBe("AWS_IAM");
    s.template.hasResourceProperties("AWS::ApiGatewayV2::Integration", {
      IntegrationType: "AWS_PROXY",
      IntegrationUri: { "Fn::GetAtt": [s.functionIds.api, "Arn"] },
    });
    s.template.hasResourceProperties("AWS::ApiGatewayV2::Stage", {
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp("userArn") },
    });
  });

  it("lets Handoff start executions from a policy of its own, which its function does not wait for", () => {
    const policies = s.template.findResources("AWS::IAM::Policy");
    const role = s.logicalId(s.runlog.functions.handoff.role!);
    const own = Object.entries(policies).filter(([id, policy]) => {
      const roles = (policy.Properties.Roles ?? []) as { Ref?: string }[];
      return id.startsWith("HandoffExecutions") && roles.some((r) => r.Ref === role);
    });
    expect(own).toHaveLength(1);
    const [policyId] = own[0]!;
    const fn = s.template.findResources("AWS::Lambda::Function")[s.functionIds.handoff]!;
    expect([fn.DependsOn ?? []].flat()).not.toContain(policyId);
    // The machine's ARN comes from the execution ($$.StateMachine.Id), not from the function's environment.
    expect("STATE_MACHINE_ARN" in functionProps("handoff").Environment.Variables).toBe(false);
  });

  it("lets the state machine invoke the versions of exactly its five task functions, old ones too", () => {
    const { actions, resources } = permissionsOf(s.template, s.logicalId(s.runlog.stateMachine.role));
    expect(actions.filter((a) => a.startsWith("lambda:"))).toEqual(["lambda:InvokeFunction"]);
    const invoked = resources.filter((r) => JSON.stringify(r).includes("Function"));
    // Any version, not the current ones only: an execution started before a deploy calls its own.
    expect(invoked).toEqual(
      (["callModel", "runTool", "recordModelFailure", "finish", "handoff"] as const).map((h) => ({
        "Fn::Join": ["", [{ "Fn::GetAtt": [s.functionIds[h], "Arn"] }, ":*"]],
      })),
    );
  });

  it("runs each task on a published version, kept when a deploy replaces it", () => {
    const { functionOf, versionOf, definition } = synthesizedMachine(s);
    const versions = s.template.findResources("AWS::Lambda::Version");
    const tasks = allStates(definition.States).filter(([, state]) => state.Type === "Task");
    expect(tasks).toHaveLength(5);
    for (const [name, task] of tasks) {
      const handler = (name[0]!.toLowerCase() + name.slice(1)) as HandlerName;
      expect(functionOf.get(task.Resource!), name).toBe(s.functionIds[handler]);
      const version = versions[versionOf.get(task.Resource!)!]!;
      expect(version.DeletionPolicy, name).toBe("Retain");
      expect(version.UpdateReplacePolicy, name).toBe("Retain");
    }
    // Only the task functions have versions: the others are invoked by events and the API ($LATEST).
    expect(Object.keys(versions)).toHaveLength(5);
  });
});

describe("the state machine", () => {
  it("is a Standard workflow, traced, that logs failures only and no execution data by default", () => {
    s.template.hasResourceProperties("AWS::StepFunctions::StateMachine", {
      StateMachineType: "STANDARD",
      LoggingConfiguration: { Level: "ERROR", IncludeExecutionData: false },
      TracingConfiguration: { Enabled: true },
    });
  });
});

describe("recovery and event-driven starts", () => {
  const target = (handler: HandlerName) =>
    Match.arrayWith([Match.objectLike({ Arn: { "Fn::GetAtt": [s.functionIds[handler], "Arn"] } })]);

  it("sweeps every five minutes", () => {
    s.template.hasResourceProperties("AWS::Events::Rule", {
      ScheduleExpression: "rate(5 minutes)",
      Targets: target("sweeper"),
    });
  });

  it("resumes when an execution of this state machine fails, times out or is aborted", () => {
    s.template.hasResourceProperties("AWS::Events::Rule", {
      EventPattern: {
        source: ["aws.states"],
        "detail-type": ["Step Functions Execution Status Change"],
        detail: {
          status: ["FAILED", "TIMED_OUT", "ABORTED"],
          stateMachineArn: [{ Ref: s.logicalId(s.runlog.stateMachine) }],
        },
      },
      EventBusName: Match.absent(),
      Targets: target("resume"),
    });
  });

  it("starts and resumes runs from runlog events on the bus given", () => {
    for (const [detailType, handler] of [
      ["runlog.StartRun", "startRun"],
      ["runlog.ResumeRun", "resume"],
    ] as const) {
      s.template.hasResourceProperties("AWS::Events::Rule", {
        EventBusName: BUS,
        EventPattern: { source: ["runlog"], "detail-type": [detailType] },
        Targets: target(handler),
      });
    }
  });

  it("steers runs from runlog.SendMessage, runlog.Decide and runlog.CancelRun events on the bus given, failures to the dead-letter queue", () => {
    const deadLetters = { "Fn::GetAtt": [s.logicalId(s.runlog.deadLetters), "Arn"] };
    const rules = Object.values(s.template.findResources("AWS::Events::Rule")).filter((rule) =>
      JSON.stringify(rule.Properties.Targets).includes(s.functionIds.steerRun),
    );
    expect(rules.map((rule) => rule.Properties)).toEqual([
      expect.objectContaining({
        EventBusName: BUS,
        EventPattern: {
          source: ["runlog"],
          "detail-type": ["runlog.SendMessage", "runlog.Decide", "runlog.CancelRun"],
        },
        Targets: [
          expect.objectContaining({
            Arn: { "Fn::GetAtt": [s.functionIds.steerRun, "Arn"] },
            DeadLetterConfig: { Arn: deadLetters },
            RetryPolicy: { MaximumRetryAttempts: 4, MaximumEventAgeInSeconds: 7200 },
          }),
        ],
      }),
    ]);
    // A bad event fails its invocation: Lambda tries it twice more, then puts it in the same queue.
    s.template.hasResourceProperties("AWS::Lambda::EventInvokeConfig", {
      FunctionName: { Ref: s.functionIds.steerRun },
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: deadLetters } },
    });
    // No other rule takes a steering event; the StartRun and ResumeRun rules take only their own.
    const others = Object.values(s.template.findResources("AWS::Events::Rule")).filter(
      (rule) => !rules.includes(rule),
    );
    for (const rule of others)
      expect(JSON.stringify(rule.Properties)).not.toMatch(/SendMessage|Decide|CancelRun/);
  });

  it("lets redriveDeadLetters alone receive and delete dead letters and invoke the four event functions, nothing else", () => {
    const queue = { "Fn::GetAtt": [s.logicalId(s.runlog.deadLetters), "Arn"] };
    const starters = (["startRun", "steerRun", "resume", "sweeper"] as const).map((fn) => ({
      "Fn::GetAtt": [s.functionIds[fn], "Arn"],
    }));
    const policies = Object.values(s.template.findResources("AWS::IAM::Policy"));
    const statementsOf = (handler: HandlerName) =>
      policies
        .filter((policy) =>
          (policy.Properties.Roles as { Ref?: string }[]).some(
            (role) => role.Ref === s.logicalId(s.runlog.functions[handler].role!),
          ),
        )
        .flatMap(
          (policy) => policy.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[],
        )
        .filter((statement) => !/^(logs|xray):/.test([statement.Action].flat()[0] as string));
    expect(statementsOf("redriveDeadLetters")).toEqual([
      expect.objectContaining({ Action: ["sqs:ReceiveMessage", "sqs:DeleteMessage"], Resource: queue }),
      expect.objectContaining({ Action: "lambda:InvokeFunction", Resource: starters }),
    ]);
    for (const handler of HANDLERS.filter((h) => h !== "redriveDeadLetters")) {
      const { actions } = permissions(handler);
      expect(
        actions.filter(
          (a) => a.startsWith("lambda:") || a === "sqs:ReceiveMessage" || a === "sqs:DeleteMessage",
        ),
        handler,
      ).toEqual([]);
    }
    const env = functionProps("redriveDeadLetters").Environment.Variables;
    expect(env.RUNLOG_DEAD_LETTERS_URL).toEqual({ Ref: s.logicalId(s.runlog.deadLetters) });
    expect(env.RUNLOG_REDRIVE_TARGETS).toEqual({ "Fn::Join": [",", starters] });
    // Invoked by a person: no rule, schedule or queue event source invokes it.
    const invokers = Object.values(s.template.findResources("AWS::Lambda::Permission")).filter((p) =>
      JSON.stringify(p.Properties.FunctionName).includes(s.functionIds.redriveDeadLetters),
    );
    expect(invokers).toEqual([]);
    // The one event source mapping is the table's stream to the lifecycle publisher (test/cdk/lifecycle.test.ts), never the dead letters.
    s.template.resourceCountIs("AWS::Lambda::EventSourceMapping", 1);
    s.template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      FunctionName: { Ref: s.functionIds.publishLifecycle },
    });
  });

  it("keeps events that could not be handled in an encrypted dead-letter queue", () => {
    s.template.hasResourceProperties("AWS::SQS::Queue", { SqsManagedSseEnabled: true });
    s.template.hasResourceProperties("AWS::Lambda::EventInvokeConfig", {
      FunctionName: { Ref: s.functionIds.startRun },
      DestinationConfig: {
        OnFailure: { Destination: { "Fn::GetAtt": [s.logicalId(s.runlog.deadLetters), "Arn"] } },
      },
    });
  });
});

describe("cdk-nag", () => {
  it("finds nothing the stack has not acknowledged with a reason", () => {
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(s.stack);
    const errors = report.violations.filter((v) => v.severity === "error");
    expect(
      errors.map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(", ")}`),
    ).toEqual([]);
  });

  it("reports what is not acknowledged (the check is live)", () => {
    const stack = new Stack(new App(), "Bare");
    new LambdaFunction(stack, "Fn", {
      runtime: Runtime.NODEJS_22_X,
      handler: "index.handler",
      code: Code.fromInline("exports.handler = async () => {};"),
    });
    const report = new AwsSolutionsChecks().validateScope(stack);
    expect(report.violations.map((v) => v.ruleName)).toContain("AwsSolutions-L1");
  });
});
