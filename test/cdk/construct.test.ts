import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Duration, RemovalPolicy, Stack } from "aws-cdk-lib";
import { Annotations, Match, Template } from "aws-cdk-lib/assertions";
import { EventBus, type IEventBus } from "aws-cdk-lib/aws-events";
import { RetentionDays } from "aws-cdk-lib/aws-logs";
import { type ISecret, Secret } from "aws-cdk-lib/aws-secretsmanager";
import { Topic } from "aws-cdk-lib/aws-sns";
import { LogLevel } from "aws-cdk-lib/aws-stepfunctions";
import { StateMachine } from "aws-local-stepfunctions";
import { AwsSolutionsChecks } from "cdk-nag";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_API_RESERVED_CONCURRENCY } from "../../cdk/edgeProps.ts";
import { RunlogPropsError } from "../../cdk/index.ts";
import { bundlingRoot, type RunlogProps } from "../../cdk/props.ts";
import { Runlog } from "../../cdk/runlog.ts";
import { FUNCTIONS_DIR, type HandlerName } from "../../cdk/runlogFunction.ts";
import { RUN_DEFINITION } from "../../lib/workflow/definition.ts";
import { synthesizedMachine } from "./machine.ts";
import { HANDLERS, permissionsOf, type Synthesized, synthesizeConstruct } from "./synth.ts";

const REPO = join(import.meta.dirname, "..", "..");
const AGENTS = join(import.meta.dirname, "fixtures", "agents.ts");
const STEPS: HandlerName[] = ["callModel", "runTool", "recordModelFailure", "finish", "handoff"];
const temp = mkdtempSync(join(tmpdir(), "runlog-cdk-props-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

type FunctionProps = {
  Environment: { Variables: Record<string, unknown> };
  ReservedConcurrentExecutions?: number;
};
const functionProps = (s: Synthesized, handler: HandlerName) =>
  s.template.findResources("AWS::Lambda::Function")[s.functionIds[handler]]!.Properties as FunctionProps;
const alarms = (s: Synthesized) => Object.values(s.template.findResources("AWS::CloudWatch::Alarm"));

describe("the construct in a user's stack", () => {
  it("tells every function the status index's shard count, and keeps the old index only when asked", () => {
    const sharded = synthesizeConstruct({ agentsModule: AGENTS, statusShards: 16, legacyStatusIndex: true });
    for (const handler of HANDLERS) {
      expect(functionProps(sharded, handler).Environment.Variables.RUNLOG_STATUS_SHARDS, handler).toBe("16");
    }
    const indexes = (s: Synthesized) =>
      (
        Object.values(s.template.findResources("AWS::DynamoDB::Table"))[0]!.Properties as {
          GlobalSecondaryIndexes: { IndexName: string }[];
        }
      ).GlobalSecondaryIndexes.map((index) => index.IndexName);
    expect(indexes(sharded)).toEqual(["byStatusShard", "byParent", "byStatus"]);
    expect(indexes(synthesizeConstruct({ agentsModule: AGENTS }))).toEqual([
      "byStatusShard",
      "byParent",
      "byOwner",
    ]);
  });

  it("keeps finished runs retentionDays days (the table's TTL), and forever without it", () => {
    const kept = synthesizeConstruct({ agentsModule: AGENTS, retentionDays: 30 });
    kept.template.hasResourceProperties("AWS::DynamoDB::Table", {
      TimeToLiveSpecification: { AttributeName: "expiresAt", Enabled: true },
    });
    for (const handler of HANDLERS) {
      expect(functionProps(kept, handler).Environment.Variables.RUNLOG_RETENTION_DAYS, handler).toBe("30");
    }
    const forever = synthesizeConstruct({ agentsModule: AGENTS });
    for (const handler of HANDLERS) {
      expect("RUNLOG_RETENTION_DAYS" in functionProps(forever, handler).Environment.Variables).toBe(false);
    }
  });

  it("reserves concurrency for the step functions only, and bounds the tool calls run at once", () => {
    const s = synthesizeConstruct({
      agentsModule: AGENTS,
      concurrency: { reservedConcurrency: 7, maxToolCalls: 3 },
    });
    for (const handler of HANDLERS) {
      expect(functionProps(s, handler).ReservedConcurrentExecutions, handler).toBe(
        STEPS.includes(handler) ? 7 : handler === "api" ? DEFAULT_API_RESERVED_CONCURRENCY : undefined,
      );
    }
    const machine = synthesizedMachine(s);
    const { definition } = machine;
    expect(definition.States.RunTools!.MaxConcurrency).toBe(3);
    // The one difference from lib/workflow's definition (which bounds them at 10), which still validates.
    expect(RUN_DEFINITION.States.RunTools.MaxConcurrency).toBe(10);
    definition.States.RunTools!.MaxConcurrency = RUN_DEFINITION.States.RunTools.MaxConcurrency;
    expect(definition).toEqual(JSON.parse(JSON.stringify(RUN_DEFINITION)));
    const bounded = machine.filled((id) => `arn:aws:lambda:us-east-1:123456789012:function:${id}`);
    expect(
      () => new StateMachine(bounded as never, { validationOptions: { checkArn: false } }),
    ).not.toThrow();
  });

  it("leaves the steps' concurrency to the account without the prop, and reserves the Api's", () => {
    const s = synthesizeConstruct({ agentsModule: AGENTS });
    for (const handler of HANDLERS)
      expect(functionProps(s, handler).ReservedConcurrentExecutions, handler).toBe(
        handler === "api" ? DEFAULT_API_RESERVED_CONCURRENCY : undefined,
      );
    expect(synthesizedMachine(s).definition).toEqual(JSON.parse(JSON.stringify(RUN_DEFINITION)));
  });

  it("alarms on the queue, executions, each function, the table, the API, the model and the sweep", () => {
    const s = synthesizeConstruct({ agentsModule: AGENTS });
    const found = alarms(s);
    expect(found).toHaveLength(10 + 2 * HANDLERS.length);
    for (const handler of HANDLERS) {
      const on = found.filter((a) =>
        JSON.stringify(a.Properties.Metrics ?? []).includes(JSON.stringify({ Ref: s.functionIds[handler] })),
      );
      expect(
        on
          .map(
            (a) =>
              a.Properties.Metrics.find(
                (q: { ReturnData?: boolean; Label: string }) => q.ReturnData !== false,
              ).Label,
          )
          .sort(),
        handler,
      ).toEqual([`% of ${handler} invocations failed`, `% of ${handler} invocations throttled`]);
    }
    for (const alarm of found) expect(alarm.Properties.AlarmActions).toBeUndefined();
    expect(s.runlog.alarms).toHaveLength(found.length);
  });

  it("sends every alarm and its return to OK to the topic given, and makes none with alarms: false", () => {
    const s = synthesizeConstruct((stack) => ({
      agentsModule: AGENTS,
      alarms: { topic: new Topic(stack, "Oncall") },
    }));
    const topic = { Ref: s.logicalId(s.stack.node.findChild("Oncall")) };
    for (const alarm of alarms(s)) {
      expect(alarm.Properties).toMatchObject({ AlarmActions: [topic], OKActions: [topic] });
    }
    const none = synthesizeConstruct({ agentsModule: AGENTS, alarms: false });
    none.template.resourceCountIs("AWS::CloudWatch::Alarm", 0);
    expect(none.runlog.alarms).toEqual([]);
  });

  it("takes runlog events from the user's bus; failed executions still come from the default bus", () => {
    const s = synthesizeConstruct((stack) => ({
      agentsModule: AGENTS,
      eventBus: new EventBus(stack, "Bus") as IEventBus,
    }));
    const bus = { Ref: s.logicalId(s.stack.node.findChild("Bus")) };
    for (const detailType of [
      ["runlog.StartRun"],
      ["runlog.ResumeRun"],
      ["runlog.SendMessage", "runlog.Decide", "runlog.CancelRun"],
    ]) {
      s.template.hasResourceProperties("AWS::Events::Rule", {
        EventBusName: bus,
        EventPattern: { source: ["runlog"], "detail-type": detailType },
      });
    }
    s.template.hasResourceProperties("AWS::Events::Rule", {
      EventBusName: Match.absent(),
      EventPattern: { source: ["aws.states"] },
    });
  });

  it("lets CallModel alone read the user's secret, and tells it which one", () => {
    const s = synthesizeConstruct((stack) => ({
      agentsModule: AGENTS,
      // CDK's classes meet their interfaces only without exactOptionalPropertyTypes.
      modelKeySecret: new Secret(stack, "ModelKey") as ISecret,
    }));
    const secret = { Ref: s.logicalId(s.stack.node.findChild("ModelKey")) };
    for (const handler of HANDLERS) {
      const { actions, resources } = permissionsOf(
        s.template,
        s.logicalId(s.runlog.functions[handler].role!),
      );
      const reads = actions.filter((a) => a.startsWith("secretsmanager:"));
      if (handler === "callModel") {
        expect(reads).toContain("secretsmanager:GetSecretValue");
        expect(resources).toContainEqual(secret);
        expect(functionProps(s, handler).Environment.Variables.MODEL_KEY_SECRET_ARN).toEqual(secret);
      } else {
        expect(reads, handler).toEqual([]);
        expect("MODEL_KEY_SECRET_ARN" in functionProps(s, handler).Environment.Variables, handler).toBe(
          false,
        );
      }
    }
  });

  it("passes the sweep rate, execution timeout, table removal policy and log retention through", () => {
    const s = synthesizeConstruct({
      agentsModule: AGENTS,
      sweepEvery: Duration.minutes(15),
      executionTimeout: Duration.hours(2),
      tableRemovalPolicy: RemovalPolicy.DESTROY,
      logRetention: RetentionDays.ONE_WEEK,
    });
    s.template.hasResourceProperties("AWS::Events::Rule", { ScheduleExpression: "rate(15 minutes)" });
    s.template.hasResource("AWS::DynamoDB::Table", { DeletionPolicy: "Delete" });
    // A lease outlasts the execution that holds it: two hours plus five minutes.
    expect(functionProps(s, "startRun").Environment.Variables.RUNLOG_LEASE_MS).toBe(String(125 * 60_000));
    const groups = Object.values(s.template.findResources("AWS::Logs::LogGroup"));
    expect(groups.length).toBe(HANDLERS.length + 2);
    for (const group of groups) expect(group.Properties.RetentionInDays).toBe(7);
  });

  it("keeps every log group no longer than the runs (retentionDays), and logs execution data only when asked", () => {
    const s = synthesizeConstruct({
      agentsModule: AGENTS,
      retentionDays: 10,
      stateMachineLogs: { level: LogLevel.ALL, includeExecutionData: true },
    });
    const groups = Object.values(s.template.findResources("AWS::Logs::LogGroup"));
    expect(groups.length).toBe(HANDLERS.length + 2);
    // CloudWatch offers 7 and 14 days: the longest not longer than the 10 days runs are kept.
    for (const group of groups) expect(group.Properties.RetentionInDays).toBe(7);
    s.template.hasResourceProperties("AWS::StepFunctions::StateMachine", {
      LoggingConfiguration: { Level: "ALL", IncludeExecutionData: true },
    });
  });

  it("turns the automatic redrive on for the sweeper only, through the one config variable", () => {
    const s = synthesizeConstruct({ agentsModule: AGENTS, redrive: { after: Duration.minutes(30) } });
    expect(functionProps(s, "sweeper").Environment.Variables.RUNLOG_REDRIVE_AFTER_MS).toBe(String(1_800_000));
    for (const handler of HANDLERS.filter((h) => h !== "sweeper"))
      expect("RUNLOG_REDRIVE_AFTER_MS" in functionProps(s, handler).Environment.Variables, handler).toBe(
        false,
      );
  });

  it("passes cdk-nag in the user's stack: the construct acknowledges its own findings", () => {
    const s = synthesizeConstruct({
      agentsModule: AGENTS,
      modelKeySecret: "arn:aws:secretsmanager:us-east-1:123456789012:secret:model-key-AbCdEf",
      concurrency: { reservedConcurrency: 10 },
    });
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(s.stack);
    const errors = report.violations.filter((v) => v.severity === "error");
    expect(
      errors.map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(", ")}`),
    ).toEqual([]);
  });

  it("can be placed twice in one stack, each with its own state machine logs", () => {
    const stack = new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "Two");
    new Runlog(stack, "Support", { agentsModule: AGENTS });
    new Runlog(stack, "Sales", { agentsModule: AGENTS, alarms: false });
    const groups = Object.values(Template.fromStack(stack).findResources("AWS::Logs::LogGroup"));
    const names = groups.map((g) => g.Properties.LogGroupName).filter((name) => name !== undefined);
    expect(names.sort()).toEqual([
      "/aws/vendedlogs/states/Two/Sales-Run",
      "/aws/vendedlogs/states/Two/Support-Run",
    ]);
  });
});

describe("where the functions are bundled from", () => {
  it("is the nearest directory at or above the agents module holding a lockfile", () => {
    expect(bundlingRoot(AGENTS, undefined)).toBe(REPO);
  });

  it("is runlog's own checkout when runlog lies outside the user's project (linked, not installed)", () => {
    const project = join(temp, "linked");
    mkdirSync(join(project, "src"), { recursive: true });
    writeFileSync(join(project, "pnpm-lock.yaml"), "lockfileVersion: '9.0'\n");
    writeFileSync(join(project, "src", "agents.ts"), "export const agents = {};\n");
    expect(FUNCTIONS_DIR.startsWith(project)).toBe(false);
    expect(bundlingRoot(join(project, "src", "agents.ts"), undefined)).toBe(REPO);
  });
});

describe("bad props", () => {
  const bare = join(temp, "bare");
  mkdirSync(bare, { recursive: true });
  writeFileSync(join(bare, "agents.ts"), "export const agents = {};\n");
  const cases: [string, Partial<RunlogProps>][] = [
    ["agentsModule", { agentsModule: join(temp, "missing.ts") }],
    ["agentsModule", { agentsModule: "" }],
    ["agentsModule", { agentsModule: temp }],
    ["projectRoot", { projectRoot: join(temp, "nowhere") }],
    ["retentionDays", { retentionDays: 0 }],
    ["retentionDays", { retentionDays: 1.5 }],
    ["retentionDays", { retentionDays: Number.NaN }],
    ["sweepEvery", { sweepEvery: Duration.seconds(30) }],
    ["sweepEvery", { sweepEvery: Duration.seconds(90) }],
    ["redrive.after", { redrive: { after: Duration.seconds(30) } }],
    ["executionTimeout", { executionTimeout: Duration.days(400) }],
    ["concurrency.reservedConcurrency", { concurrency: { reservedConcurrency: 0 } }],
    ["concurrency.reservedConcurrency", { concurrency: { reservedConcurrency: 2.5 } }],
    // Fewer than one response's tool calls at once: the batch would throttle itself.
    ["concurrency.reservedConcurrency", { concurrency: { reservedConcurrency: 3, maxToolCalls: 4 } }],
    ["concurrency.reservedConcurrency", { concurrency: { reservedConcurrency: 9 } }],
    ["concurrency.maxToolCalls", { concurrency: { maxToolCalls: 2.5 } }],
    ["concurrency.maxToolCalls", { concurrency: { maxToolCalls: 0 } }],
    ["concurrency.maxToolCalls", { concurrency: { maxToolCalls: 41 } }],
    ["concurrency", { concurrency: 5 as never }],
    ["executionTimeout", { executionTimeout: Duration.seconds(30) }],
    ["executionTimeout", { executionTimeout: Duration.millis(90_500) }],
    ["modelKeySecret", { modelKeySecret: " " }],
    ["statusShards", { statusShards: 0 }],
    ["statusShards", { statusShards: 33 }],
    ["statusShards", { statusShards: 2.5 }],
  ];
  it.each(cases)("%s: %o is refused, naming the prop", (prop, bad) => {
    const stack = new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "Bad");
    expect(() => new Runlog(stack, "Agents", { agentsModule: AGENTS, ...bad })).toThrow(
      expect.objectContaining({
        name: "RunlogPropsError",
        code: "runlog_props",
        prop,
        field: prop,
        message: expect.stringContaining(prop),
      }),
    );
    // Refused before anything was made.
    expect(stack.node.findAll().length).toBeLessThanOrEqual(2);
  });

  it("warns, naming the prop, when reserved concurrency is more than a default account can reserve", () => {
    const stack = new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "Big");
    new Runlog(stack, "Agents", { agentsModule: AGENTS, concurrency: { reservedConcurrency: 181 } });
    const warnings = Annotations.fromStack(stack).findWarning("*", Match.stringLikeRegexp("."));
    expect(warnings.map((w) => w.entry.data)).toEqual([
      expect.stringContaining("concurrency.reservedConcurrency"),
    ]);
    const fits = new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "Fits");
    new Runlog(fits, "Agents", { agentsModule: AGENTS, concurrency: { reservedConcurrency: 180 } });
    expect(Annotations.fromStack(fits).findWarning("*", Match.stringLikeRegexp("."))).toEqual([]);
  });

  it("projectRoot: refused when nothing at or above the agents module holds a lockfile", () => {
    // /tmp usually has no lockfile above it; if it has, this project has one anyway.
    const stack = new Stack(new App(), "NoLock");
    const error = (() => {
      try {
        new Runlog(stack, "Agents", { agentsModule: join(bare, "agents.ts") });
      } catch (caught) {
        return caught;
      }
    })();
    // runlog/cdk exports the class, so a user's app can tell a bad prop from any other failure.
    expect(error).toBeInstanceOf(RunlogPropsError);
    expect(error).toMatchObject({ name: "RunlogPropsError", prop: "projectRoot" });
  });
});
