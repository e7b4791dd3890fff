import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { App, type CfnResource, Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { type IVpc, SubnetType, Vpc } from "aws-cdk-lib/aws-ec2";
import type { IConstruct } from "constructs";
import type { RunlogProps } from "../../cdk/props.ts";
import { Runlog } from "../../cdk/runlog.ts";
import type { HandlerName } from "../../cdk/runlogFunction.ts";
import { RunlogStack, type RunlogStackProps } from "../../cdk/runlogStack.ts";

export interface Synthesized {
  stack: Stack;
  runlog: Runlog;
  template: Template;
  /** The CloudFormation logical id of a construct's resource. */
  logicalId(construct: IConstruct): string;
  /** Logical id of each function, by handler. */
  functionIds: Record<HandlerName, string>;
}

export interface SynthOptions {
  /** Run esbuild: the slow part, which `npm run synth` covers. @default false */
  bundle?: boolean;
  outdir?: string;
}

/** Every function of the construct, by handler. */
export const HANDLERS: readonly HandlerName[] = [
  "callModel",
  "runTool",
  "recordModelFailure",
  "finish",
  "handoff",
  "startRun",
  "steerRun",
  "resume",
  "sweeper",
  "api",
  "redriveDeadLetters",
  "publishLifecycle",
];

const ENV = { account: "123456789012", region: "us-east-1" };

function newApp(options: SynthOptions): App {
  process.env.CDK_DISABLE_CLI_TELEMETRY = "true";
  return new App({
    ...(options.bundle ? {} : { context: { "aws:cdk:bundling-stacks": [] } }),
    ...(options.outdir ? { outdir: options.outdir } : {}),
  });
}

function synthesized(stack: Stack, runlog: Runlog): Synthesized {
  const template = Template.fromStack(stack);
  const logicalId = (construct: IConstruct) => {
    const resource = (construct.node.defaultChild ?? construct) as CfnResource;
    return stack.getLogicalId(resource);
  };
  const functionIds = Object.fromEntries(
    Object.entries(runlog.functions).map(([name, fn]) => [name, logicalId(fn)]),
  ) as Record<HandlerName, string>;
  return { stack, runlog, template, logicalId, functionIds };
}

/** Synthesize one RunlogStack as cdk/app.ts does. */
export function synthesize(props: RunlogStackProps = {}, options: SynthOptions = {}): Synthesized {
  const stack = new RunlogStack(newApp(options), "RunlogTest", { env: ENV, ...props });
  return synthesized(stack, stack.runlog);
}

/**
 * Synthesize a user's stack holding the construct, as `Agents`. Props given as
 * a function of the stack can make what the user's stack would own (a bus, a topic, a secret).
 */
export function synthesizeConstruct(
  props: RunlogProps | ((stack: Stack) => RunlogProps),
  options: SynthOptions = {},
): Synthesized {
  const stack = new Stack(newApp(options), "UserStack", { env: ENV });
  const runlog = new Runlog(stack, "Agents", typeof props === "function" ? props(stack) : props);
  return synthesized(stack, runlog);
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

/** What only the local runtime needs: none of it may be in a Lambda bundle. */
export const LOCAL_ONLY_PACKAGES = [
  "dynalite",
  "aws-local-stepfunctions",
  "classic-level",
  "@hono/node-server",
  "tsx",
];
/** runlog's own local runtime: the in-process orchestrator, the SQLite store, the CLI. */
export const LOCAL_ONLY_SOURCES = [
  "lib/adapters/local/",
  "lib/adapters/sqlite/",
  "lib/api/local.",
  "lib/cli/",
];

/** The file esbuild bundled a function into (synthesized with `bundle: true` into outdir). */
export function bundleFile(s: Synthesized, outdir: string, handler: HandlerName): string {
  const resource = s.template.findResources("AWS::Lambda::Function")[s.functionIds[handler]]!;
  // Code.S3Key is "<asset hash>.zip"; the synthesizer stages the bundle in asset.<hash>.
  const hash = (resource.Properties.Code.S3Key as string).replace(/\.zip$/, "");
  return join(outdir, `asset.${hash}`, "index.mjs");
}

/**
 * A function's bundle: its code, and the source files esbuild put in it (from the source maps), over
 * its entry and every chunk beside it (what the entry loads by `import()` is a chunk of its own).
 */
export function bundleOf(
  s: Synthesized,
  outdir: string,
  handler: HandlerName,
): { code: string; sources: string[] } {
  const dir = dirname(bundleFile(s, outdir, handler));
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".mjs"))
    .map((file) => join(dir, file));
  const sources = files.flatMap(
    (file) => (JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] }).sources,
  );
  return { code: files.map((file) => readFileSync(file, "utf8")).join("\n"), sources: [...new Set(sources)] };
}

/** The sources of a bundle that belong to the local runtime (by package, or runlog's own local code). */
export function localOnlySources(sources: string[]): string[] {
  return sources.filter(
    (source) =>
      LOCAL_ONLY_PACKAGES.some((name) => source.includes(`node_modules/${name}/`)) ||
      LOCAL_ONLY_SOURCES.some((path) => source.includes(path)),
  );
}

/** A VPC with isolated subnets only: no NAT, no internet gateway route for the functions. */
export function isolatedVpc(stack: Stack): IVpc {
  return new Vpc(stack, "Vpc", {
    maxAzs: 2,
    natGateways: 0,
    subnetConfiguration: [{ name: "isolated", subnetType: SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
  }) as IVpc;
}
