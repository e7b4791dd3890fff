import { join } from "node:path";
import { App, NestedStack, Stack, Token } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { EventBus, type IEventBus } from "aws-cdk-lib/aws-events";
import { AccountPrincipal } from "aws-cdk-lib/aws-iam";
import { Construct } from "constructs";
import { describe, expect, it } from "vitest";
import { deploymentName } from "../../cdk/deployment.ts";
import { Runlog } from "../../cdk/runlog.ts";
import { RunlogStack } from "../../cdk/runlogStack.ts";
import { METRICS_DEPLOYMENT, METRICS_NAMESPACE } from "../../lib/adapters/aws/metrics.ts";
import { NAMES } from "../../lib/runtime/config.ts";
import { matches } from "../support/bundleRun/eventBus.ts";

/**
 * Two deployments in one account must not act on each other: no rule of one matches an event
 * meant for the other, no metric series, alarm, log group, bus or dead-letter queue is shared.
 */
const AGENTS = join(import.meta.dirname, "fixtures", "agents.ts");
const ENV = { account: "123456789012", region: "us-east-1" };
type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

interface Deployment {
  stack: RunlogStack;
  template: Template;
  resources: Resources;
  /** A stand-in for what a Ref or GetAtt of this template resolves to once deployed: unique per stack. */
  resolve(value: unknown): unknown;
}

/** A stack's template read back; every stack of the app must exist before the first is read. */
function deployed(stack: RunlogStack): Deployment {
  const template = Template.fromStack(stack);
  const resources = template.toJSON().Resources as Resources;
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve);
    if (value === null || typeof value !== "object") return value;
    const intrinsic = value as Record<string, unknown>;
    if (typeof intrinsic.Ref === "string") return `${stack.stackName}:${intrinsic.Ref}`;
    if (Array.isArray(intrinsic["Fn::GetAtt"]))
      return `${stack.stackName}:${intrinsic["Fn::GetAtt"].join(".")}`;
    return Object.fromEntries(Object.entries(intrinsic).map(([k, v]) => [k, resolve(v)]));
  };
  return { stack, template, resources, resolve };
}

const ofType = (d: Deployment, type: string) =>
  Object.entries(d.resources).filter(([, resource]) => resource.Type === type);
const app = new App({ context: { "aws:cdk:bundling-stacks": [] } });
const stacks = ["Staging", "Production"].map(
  (id) => new RunlogStack(app, id, { env: ENV, agentsModule: AGENTS }),
);
const [staging, production] = stacks.map(deployed) as [Deployment, Deployment];
const both = [
  [staging, production],
  [production, staging],
] as const;

/** The name of the bus a rule is on, "default" when it names none. */
function busOf(d: Deployment, rule: Record<string, unknown>): string {
  const name = rule.EventBusName;
  if (name === undefined) return "default";
  const ref = (name as { Ref?: string }).Ref;
  const bus = ref === undefined ? undefined : d.resources[ref];
  return bus?.Type === "AWS::Events::EventBus" ? String(bus.Properties?.Name) : String(d.resolve(name));
}

/** What reaches a deployment's rules: its runlog events on its bus, its executions' endings on the default bus. */
function eventsOf(d: Deployment): { bus: string; event: Record<string, unknown> }[] {
  const bus = String(ofType(d, "AWS::Events::EventBus")[0]![1].Properties!.Name);
  const [machine] = ofType(d, "AWS::StepFunctions::StateMachine");
  return [
    ...["runlog.StartRun", "runlog.ResumeRun"].map((type) => ({
      bus,
      event: { source: "runlog", "detail-type": type, detail: { agent: "demo", input: "x", runId: "r" } },
    })),
    ...["FAILED", "TIMED_OUT", "ABORTED"].map((status) => ({
      bus: "default",
      event: {
        source: "aws.states",
        "detail-type": "Step Functions Execution Status Change",
        detail: { status, stateMachineArn: `${d.stack.stackName}:${machine![0]}` },
      },
    })),
  ];
}

function patternRules(d: Deployment) {
  return ofType(d, "AWS::Events::Rule")
    .filter(([, rule]) => rule.Properties!.EventPattern !== undefined)
    .map(([id, rule]) => ({
      id,
      bus: busOf(d, rule.Properties!),
      pattern: d.resolve(rule.Properties!.EventPattern) as Record<string, unknown>,
    }));
}

const functionEnv = (d: Deployment) =>
  ofType(d, "AWS::Lambda::Function").map(
    ([, fn]) => (fn.Properties!.Environment as { Variables: Record<string, unknown> }).Variables,
  );

describe("two RunlogStacks in one app", () => {
  it("each have a bus of their own, named apart and token-free", () => {
    const names = [staging, production].map((d) => {
      const buses = ofType(d, "AWS::Events::EventBus");
      expect(buses).toHaveLength(1);
      return buses[0]![1].Properties!.Name;
    });
    expect(names).toEqual(["Staging-Events", "Production-Events"]);
    for (const d of [staging, production]) {
      d.template.hasOutput("EventBusName", {});
      d.template.hasOutput("EventBusArn", {});
    }
  });

  it("match each one's own events with its rules, and none of the other's", () => {
    for (const [self, other] of both) {
      const rules = patternRules(self);
      expect(rules.length).toBeGreaterThanOrEqual(3);
      // Every event meant for this deployment reaches one of its rules…
      for (const { bus, event } of eventsOf(self)) {
        expect(
          rules.some((rule) => rule.bus === bus && matches(rule.pattern, event)),
          JSON.stringify(event),
        ).toBe(true);
      }
      // …and no event meant for the other does.
      for (const { bus, event } of eventsOf(other)) {
        const matched = rules.filter((rule) => rule.bus === bus && matches(rule.pattern, event));
        expect(
          matched.map((rule) => rule.id),
          `${self.stack.stackName} <- ${JSON.stringify(event)}`,
        ).toEqual([]);
      }
      // A rule on the default bus (Step Functions' own events) names only this deployment's state machine.
      for (const rule of rules.filter((r) => r.bus === "default")) {
        const arns = (rule.pattern.detail as { stateMachineArn: unknown[] }).stateMachineArn;
        expect(arns).toEqual([
          `${self.stack.stackName}:${ofType(self, "AWS::StepFunctions::StateMachine")[0]![0]}`,
        ]);
      }
    }
  });

  it("give each one's functions one deployment dimension, apart from the other's", () => {
    const values = [staging, production].map((d) => {
      const set = new Set(functionEnv(d).map((env) => env[NAMES.deployment]));
      expect(set.size).toBe(1);
      const [value] = [...set];
      expect(typeof value).toBe("string");
      expect(Token.isUnresolved(value)).toBe(false);
      return value;
    });
    expect(values).toEqual(["Staging", "Production"]);
  });

  it("alarm and graph only on their own deployment's runlog metrics", () => {
    for (const [self, other] of both) {
      const own = self.stack.runlog.deployment;
      const runlogAlarms = ofType(self, "AWS::CloudWatch::Alarm").filter(
        ([, alarm]) => alarm.Properties!.Namespace === METRICS_NAMESPACE,
      );
      expect(runlogAlarms.length).toBeGreaterThan(0);
      for (const [, alarm] of runlogAlarms) {
        expect(alarm.Properties!.Dimensions).toContainEqual({ Name: METRICS_DEPLOYMENT, Value: own });
      }
      const [[, dashboard]] = ofType(self, "AWS::CloudWatch::Dashboard") as [[string, Resources[string]]];
      const parts = (dashboard.Properties!.DashboardBody as { "Fn::Join": [string, unknown[]] })[
        "Fn::Join"
      ][1];
      const body = parts.map((part) => (typeof part === "string" ? part : JSON.stringify(part))).join("");
      // Every runlog metric graphed names this deployment: plain metrics by dimension, searches by a term.
      const plain = body.match(/\["runlog","\w+",[^{]*/g) ?? [];
      expect(plain.length).toBeGreaterThan(0);
      for (const metric of plain) expect(metric).toContain(`"${METRICS_DEPLOYMENT}","${own}"`);
      const searches = body.match(/SEARCH\([^)]*\)/g) ?? [];
      expect(searches.length).toBeGreaterThan(0);
      for (const search of searches) expect(search).toContain(`${METRICS_DEPLOYMENT}=\\"${own}\\"`);
      expect(body).not.toContain(`"${other.stack.runlog.deployment}`);
    }
  });

  it("name no log group alike, and none with a token", () => {
    const named = [staging, production].flatMap((d) =>
      ofType(d, "AWS::Logs::LogGroup").flatMap(([, group]) => {
        const name = group.Properties!.LogGroupName;
        // Unnamed: CloudFormation names it from the stack's name and its logical id, unique.
        if (name === undefined) return [];
        expect(typeof name, JSON.stringify(name)).toBe("string");
        expect(name).not.toMatch(/Token|\$\{/);
        return [name as string];
      }),
    );
    expect(named.sort()).toEqual([
      "/aws/vendedlogs/states/Production-Run",
      "/aws/vendedlogs/states/Staging-Run",
    ]);
  });

  it("share no dead-letter queue and reference nothing of the other", () => {
    for (const [self, other] of both) {
      // The events' dead letters, and the lifecycle publisher's own.
      const queues = ofType(self, "AWS::SQS::Queue").map(([id]) => id);
      expect(queues).toHaveLength(2);
      const eventLetters = queues.filter((id) => id.startsWith("DeadLetters"));
      expect(eventLetters).toHaveLength(1);
      const text = JSON.stringify(self.template.toJSON());
      expect(text).not.toContain("Fn::ImportValue");
      expect(text).not.toContain(other.stack.stackName);
      // Every rule target's dead letters go to this stack's own queue.
      for (const [, rule] of ofType(self, "AWS::Events::Rule")) {
        for (const target of rule.Properties!.Targets as { DeadLetterConfig?: { Arn: unknown } }[]) {
          expect(target.DeadLetterConfig?.Arn).toEqual({ "Fn::GetAtt": [eventLetters[0], "Arn"] });
        }
      }
    }
  });
});

describe("a deployment's bus", () => {
  it("lets only this account put events on it, or the publishers given", () => {
    staging.template.hasResourceProperties("AWS::Events::EventBusPolicy", {
      EventBusName: { Ref: ofType(staging, "AWS::Events::EventBus")[0]![0] },
      Statement: {
        Effect: "Allow",
        Action: "events:PutEvents",
        Principal: {
          AWS: { "Fn::Join": ["", ["arn:", { Ref: "AWS::Partition" }, ":iam::123456789012:root"]] },
        },
      },
    });
    const stack = new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "Shared", { env: ENV });
    new Runlog(stack, "Agents", {
      agentsModule: AGENTS,
      eventPublishers: [new AccountPrincipal("210987654321")],
    });
    Template.fromStack(stack).hasResourceProperties("AWS::Events::EventBusPolicy", {
      Statement: {
        Action: "events:PutEvents",
        Principal: {
          AWS: { "Fn::Join": ["", ["arn:", { Ref: "AWS::Partition" }, ":iam::210987654321:root"]] },
        },
      },
    });
  });

  it("is the one given, with no bus or policy made, when eventBus is given", () => {
    const stack = new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "Own", { env: ENV });
    const bus = new EventBus(stack, "Bus") as IEventBus;
    const runlog = new Runlog(stack, "Agents", { agentsModule: AGENTS, eventBus: bus });
    expect(runlog.eventBus).toBe(bus);
    const template = Template.fromStack(stack);
    template.resourceCountIs("AWS::Events::EventBus", 1);
    template.resourceCountIs("AWS::Events::EventBusPolicy", 0);
  });
});

describe("a deployment's name", () => {
  it("is its stack's name and its path, token-free in a nested stack", () => {
    const top = new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "Parent", { env: ENV });
    const nested = new NestedStack(top, "Agents");
    const runlog = new Runlog(nested, "Runs", { agentsModule: AGENTS });
    expect(runlog.deployment).toBe("Parent/Agents/Runs");
    const groups = Object.values(Template.fromStack(nested).findResources("AWS::Logs::LogGroup"))
      .map((group) => group.Properties.LogGroupName)
      .filter((name) => name !== undefined);
    expect(groups).toEqual(["/aws/vendedlogs/states/Parent/Agents/Runs-Run"]);
  });

  it("keeps ids that differ only in what names cannot hold apart, by a hash", () => {
    const stack = new Stack(new App(), "S");
    const names = ["a b", "ab", "a:b"].map((id) => deploymentName(new Construct(stack, id)));
    expect(names[1]).toBe("S/ab");
    expect(new Set(names).size).toBe(3);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_./-]{1,200}$/);
  });
});
