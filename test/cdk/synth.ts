import { App, type CfnResource } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import type { IConstruct } from "constructs";
import { acceptedFindings } from "../../cdk/nag.ts";
import type { HandlerName } from "../../cdk/runlogFunction.ts";
import { RunlogStack, type RunlogStackProps } from "../../cdk/runlogStack.ts";

export interface Synthesized {
  stack: RunlogStack;
  template: Template;
  /** The CloudFormation logical id of a construct's resource. */
  logicalId(construct: IConstruct): string;
  /** Logical id of each function, by handler. */
  functionIds: Record<HandlerName, string>;
}

/**
 * Synthesize one RunlogStack as the app does (with its accepted nag
 * findings). Bundling is skipped unless asked for: it is the slow part and
 * `npm run synth` covers it.
 */
export function synthesize(
  props: RunlogStackProps = {},
  options: { bundle?: boolean; outdir?: string } = {},
): Synthesized {
  process.env.CDK_DISABLE_CLI_TELEMETRY = "true";
  const app = new App({
    ...(options.bundle ? {} : { context: { "aws:cdk:bundling-stacks": [] } }),
    ...(options.outdir ? { outdir: options.outdir } : {}),
  });
  const stack = new RunlogStack(app, "RunlogTest", {
    env: { account: "123456789012", region: "us-east-1" },
    ...props,
  });
  acceptedFindings(stack);
  const template = Template.fromStack(stack);
  const logicalId = (construct: IConstruct) => {
    const resource = (construct.node.defaultChild ?? construct) as CfnResource;
    return stack.getLogicalId(resource);
  };
  const functionIds = Object.fromEntries(
    Object.entries(stack.functions).map(([name, fn]) => [name, logicalId(fn)]),
  ) as Record<HandlerName, string>;
  return { stack, template, logicalId, functionIds };
}

/** The statements of every IAM policy attached to a role, as [action, resource] pairs flattened. */
export function permissionsOf(
  template: Template,
  roleId: string,
): { actions: string[]; resources: unknown[] } {
  const policies = template.findResources("AWS::IAM::Policy");
  const actions: string[] = [];
  const resources: unknown[] = [];
  for (const policy of Object.values(policies)) {
    const roles = (policy.Properties.Roles ?? []) as { Ref?: string }[];
    if (!roles.some((role) => role.Ref === roleId)) continue;
    for (const statement of policy.Properties.PolicyDocument.Statement as {
      Action: string | string[];
      Resource: unknown;
    }[]) {
      actions.push(...[statement.Action].flat());
      resources.push(...[statement.Resource].flat());
    }
  }
  return { actions, resources };
}
