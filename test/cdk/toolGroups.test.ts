import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, type CfnElement, Duration, Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { AwsSolutionsChecks } from "cdk-nag";
import type { IConstruct } from "constructs";
import { afterAll, describe, expect, it } from "vitest";
import type { RunlogProps } from "../../cdk/props.ts";
import { RunlogPropsError } from "../../cdk/propsError.ts";
import { Runlog } from "../../cdk/runlog.ts";
import { allStates, synthesizedMachine } from "./machine.ts";
import { permissionsOf, type Synthesized, synthesizeConstruct } from "./synth.ts";

/** Issue 35 (4): a role per tool group. */
const AGENTS = join(import.meta.dirname, "fixtures", "agents.ts");
const REFUNDS = "arn:aws:dynamodb:us-east-1:123456789012:table/refunds";

process.env.CDK_DISABLE_CLI_TELEMETRY = "true";
const stack = new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "UserStack", {
  env: { account: "123456789012", region: "us-east-1" },
});
const runlog = new Runlog(stack, "Agents", {
  agentsModule: AGENTS,
  toolGroups: {
    payments: { tools: ["issue_refund", "charge_card"], memorySize: 1_024, timeout: Duration.minutes(5) },
    mail: { tools: ["send_email"] },
  },
});
// A team's grant to one group, added after the construct as in its own stack.
const payments = runlog.toolGroup("payments");
payments.role.addToPrincipalPolicy(
  new PolicyStatement({ actions: ["dynamodb:PutItem"], resources: [REFUNDS] }),
);
const template = Template.fromStack(stack);
const functions = template.findResources("AWS::Lambda::Function");
const id = (construct: IConstruct) =>
  stack.getLogicalId((construct.node.defaultChild ?? construct) as CfnElement);
const machine = synthesizedMachine({ template } as Synthesized);

describe("toolGroups", () => {
  it("makes a RunTool function per group, with its own role and sizing, running RunTool's code", () => {
    const group = functions[id(payments.function)]!.Properties;
    const runTool = functions[id(runlog.functions.runTool)]!.Properties;
    expect(group).toMatchObject({ MemorySize: 1_024, Timeout: 300, Handler: runTool.Handler });
    expect(group.Environment.Variables.RUNLOG_STEP_TIMEOUT_SECONDS).toBe("300");
    expect(group.Role).not.toEqual(runTool.Role);
    const mail = runlog.toolGroup("mail");
    expect(functions[id(mail.function)]!.Properties.Role).not.toEqual(group.Role);
    expect(functions[id(mail.function)]!.Properties.Description).toBe("runlog runTool");
  });

  it("gives a group's role what RunTool's has, plus only the grants added to that group", () => {
    const roleOf = (fn: { role?: unknown }) => id(fn.role as never);
    const own = permissionsOf(template, roleOf(payments.function));
    const runTool = permissionsOf(template, roleOf(runlog.functions.runTool));
    const mail = permissionsOf(template, roleOf(runlog.toolGroup("mail").function));
    expect(own.resources).toContain(REFUNDS);
    expect(runTool.resources).not.toContain(REFUNDS);
    expect(mail.resources).not.toContain(REFUNDS);
    expect(new Set(mail.actions)).toEqual(new Set(runTool.actions));
  });

  it("routes each group's tools to its function's published version in the state machine", () => {
    const states = Object.fromEntries(allStates(machine.definition.States));
    const route = states.RouteTool as unknown as {
      Choices: { Or?: unknown[]; Variable?: string; Next: string }[];
      Default: string;
    };
    expect(route.Default).toBe("RunTool");
    expect(route.Choices).toEqual([
      {
        Or: [
          { Variable: "$.tool", StringEquals: "issue_refund" },
          { Variable: "$.tool", StringEquals: "charge_card" },
        ],
        Next: "RunToolPayments",
      },
      { Variable: "$.tool", StringEquals: "send_email", Next: "RunToolMail" },
    ]);
    const resource = states.RunToolPayments!.Resource as string;
    expect(machine.functionOf.get(resource)).toBe(id(payments.function));
    expect(states.RunToolPayments!.TimeoutSeconds).toBe(360);
    // The state machine may invoke every version of each group's function.
    const policies = JSON.stringify(template.findResources("AWS::IAM::Policy"));
    expect(policies).toContain(`"${id(payments.function)}","Arn"]},":*"`);
  });

  it("alarms on each group's function as on the others", () => {
    const alarms = Object.keys(template.findResources("AWS::CloudWatch::Alarm"));
    expect(alarms.some((name) => name.includes("RunToolPaymentsErrorRate"))).toBe(true);
    expect(alarms.some((name) => name.includes("RunToolMailThrottleRate"))).toBe(true);
  });

  it("names the groups there are when asked for one that is not", () => {
    expect(() => runlog.toolGroup("billing")).toThrow(/no group "billing": the groups are payments, mail/);
  });

  it("leaves the stack without groups as it was: no RouteTool, one RunTool function", () => {
    const plain = synthesizeConstruct({ agentsModule: AGENTS });
    expect(synthesizedMachine(plain).text).not.toContain("RouteTool");
    const descriptions = Object.values(plain.template.findResources("AWS::Lambda::Function")).map(
      (f) => f.Properties.Description,
    );
    expect(descriptions.filter((d) => d === "runlog runTool")).toHaveLength(1);
  });

  it.each<[string, RunlogProps["toolGroups"], string]>([
    ["a tool in two groups", { a: { tools: ["x"] }, b: { tools: ["x"] } }, "toolGroups.b.tools"],
    ["an empty group", { a: { tools: [] } }, "toolGroups.a.tools"],
    ["a bad group name", { "pay ments": { tools: ["x"] } }, "toolGroups.pay ments"],
    ["the default's name", { default: { tools: ["x"] } }, "toolGroups.default"],
    ["a bad size", { a: { tools: ["x"], memorySize: 64 } }, "toolGroups.a.memorySize"],
    ["too short a timeout", { a: { tools: ["x"], timeout: Duration.seconds(5) } }, "toolGroups.a.timeout"],
    ["too few reserved", { a: { tools: ["x"], reservedConcurrency: 2 } }, "toolGroups.a.reservedConcurrency"],
  ])("refuses %s at synth, naming the prop", (_, toolGroups, prop) => {
    let caught: unknown;
    try {
      synthesizeConstruct({ agentsModule: AGENTS, ...(toolGroups ? { toolGroups } : {}) });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RunlogPropsError);
    expect((caught as RunlogPropsError).prop).toBe(prop);
  });

  it("passes cdk-nag", () => {
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(runlog);
    const errors = report.violations.filter((v) => v.severity === "error");
    expect(
      errors.map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(", ")}`),
    ).toEqual([]);
  });

  describe("cfn-lint", () => {
    const dir = mkdtempSync(join(tmpdir(), "runlog-cfn-lint-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    it("finds no error in the template", () => {
      const file = join(dir, "template.json");
      writeFileSync(file, JSON.stringify(template.toJSON()));
      const run = spawnSync("cfn-lint", ["--format", "parseable", "--ignore-checks", "W", "--", file], {
        encoding: "utf8",
      });
      if (run.error) throw new Error(`cfn-lint could not run: ${run.error.message}`);
      expect(`${run.stdout}${run.stderr}`).toBe("");
      expect(run.status).toBe(0);
    }, 180_000);
  });
});
