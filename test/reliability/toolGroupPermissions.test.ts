import { join } from "node:path";
import { App, type CfnElement, Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { IConstruct } from "constructs";
import { describe, expect, it } from "vitest";
import { Runlog } from "../../cdk/runlog.ts";
import type { HandlerName } from "../../cdk/runlogFunction.ts";
import type { AwsCall } from "../support/iam/awsCalls.ts";
import { deniedCalls, unusedGrants } from "../support/iam/evaluate.ts";
import { functionPolicies, type RolePolicy, type TemplateJson } from "../support/iam/template.ts";

/**
 * Issue 35 (4) in the IAM simulation (test/support/iam, as permissions.test.ts): a tool group's role
 * is allowed the grant added to it and denied the grant added to another group, and otherwise holds
 * what RunTool's role holds. Apart from permissions.test.ts, whose handler recordings take minutes.
 */
const AGENTS = join(import.meta.dirname, "..", "cdk", "fixtures", "agents.ts");
const REFUNDS = "arn:aws:dynamodb:us-east-1:123456789012:table/refunds";
const SENDER = "arn:aws:ses:us-east-1:123456789012:identity/support@example.com";

process.env.CDK_DISABLE_CLI_TELEMETRY = "true";
const stack = new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "UserStack", {
  env: { account: "123456789012", region: "us-east-1" },
});
const runlog = new Runlog(stack, "Agents", {
  agentsModule: AGENTS,
  toolGroups: { payments: { tools: ["issue_refund"] }, mail: { tools: ["send_email"] } },
});
runlog
  .toolGroup("payments")
  .role.addToPrincipalPolicy(new PolicyStatement({ actions: ["dynamodb:PutItem"], resources: [REFUNDS] }));
runlog
  .toolGroup("mail")
  .role.addToPrincipalPolicy(new PolicyStatement({ actions: ["ses:SendEmail"], resources: [SENDER] }));

const id = (construct: IConstruct) =>
  stack.getLogicalId((construct.node.defaultChild ?? construct) as CfnElement);
const FUNCTIONS = {
  runTool: runlog.functions.runTool,
  payments: runlog.toolGroup("payments").function,
  mail: runlog.toolGroup("mail").function,
};
type Fn = keyof typeof FUNCTIONS;
// The evaluator is keyed by handler; a group's function is a RunTool function under another name.
const policies = functionPolicies(
  Template.fromStack(stack).toJSON() as TemplateJson,
  Object.fromEntries(Object.entries(FUNCTIONS).map(([fn, f]) => [fn, id(f)])) as Record<HandlerName, string>,
) as unknown as Record<HandlerName, RolePolicy[]>;
const call = (fn: Fn, action: string, resource: string) => ({ fn, action, resource }) as unknown as AwsCall;
const denied = async (calls: AwsCall[]) =>
  (await deniedCalls(calls, policies)).map((d) => `${d.fn} ${d.action} ${d.resource}`);

describe("a tool group's role in the IAM simulation", () => {
  it("is allowed its own added grant and denied another group's", async () => {
    expect(
      await denied([call("payments", "dynamodb:PutItem", REFUNDS), call("mail", "ses:SendEmail", SENDER)]),
    ).toEqual([]);
    const wrong = [
      call("mail", "dynamodb:PutItem", REFUNDS),
      call("payments", "ses:SendEmail", SENDER),
      call("runTool", "dynamodb:PutItem", REFUNDS),
      call("runTool", "ses:SendEmail", SENDER),
    ];
    expect(await denied(wrong)).toEqual(wrong.map((c) => `${c.fn} ${c.action} ${c.resource}`));
  });

  it("holds what RunTool's holds and nothing more but its own grant", () => {
    const grants = (fn: Fn) =>
      unusedGrants([], policies)
        .filter((grant) => grant.startsWith(`${fn} `))
        .map((grant) => grant.slice(fn.length + 1).replace(id(FUNCTIONS[fn].logGroup), "<own log group>"));
    const runTool = grants("runTool");
    expect(runTool.length).toBeGreaterThan(3);
    expect(grants("payments")).toEqual([...runTool, `dynamodb:PutItem ${REFUNDS}`].sort());
    expect(grants("mail")).toEqual([...runTool, `ses:SendEmail ${SENDER}`].sort());
  });
});
