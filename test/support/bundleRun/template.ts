import { dirname } from "node:path";
import type { HandlerName } from "../../../cdk/runlogFunction.ts";
import { bundleFile, type Synthesized } from "../../cdk/synth.ts";
import { ACCOUNT, REGION } from "../iam/awsCalls.ts";

/** What a resource's `Ref` or `Fn::GetAtt <id>.Arn` stands for once it exists locally. */
export interface LocalResource {
  ref: string;
  arn?: string;
}

/** The account and region the test synthesizes for (test/cdk/synth.ts). */
export { ACCOUNT, REGION };

const PSEUDO: Record<string, string> = {
  "AWS::AccountId": ACCOUNT,
  "AWS::Region": REGION,
  "AWS::Partition": "aws",
  "AWS::URLSuffix": "amazonaws.com",
};

type Template = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

/**
 * Resolve the intrinsics a function's environment and the state machine's substitutions use
 * (`Ref`, `Fn::GetAtt …Arn`, `Fn::Join`, pseudo parameters) to the local resources. Anything
 * else is an error naming it: a template that needs more than this is not what the test ran.
 */
export function resolve(value: unknown, resources: Readonly<Record<string, LocalResource>>): string {
  if (typeof value === "string") return value;
  if (value === null || typeof value !== "object") throw new Error(`cannot resolve ${JSON.stringify(value)}`);
  const intrinsic = value as Record<string, unknown>;
  if (typeof intrinsic.Ref === "string") {
    const ref = intrinsic.Ref;
    const known = PSEUDO[ref] ?? resources[ref]?.ref;
    if (known === undefined) throw new Error(`template: no local resource for Ref ${ref}`);
    return known;
  }
  if (Array.isArray(intrinsic["Fn::GetAtt"])) {
    const [id, attribute] = intrinsic["Fn::GetAtt"] as [string, string];
    const arn = resources[id]?.arn;
    if (attribute !== "Arn" || arn === undefined) {
      throw new Error(`template: no local value for Fn::GetAtt ${id}.${attribute}`);
    }
    return arn;
  }
  if (Array.isArray(intrinsic["Fn::Join"])) {
    const [separator, parts] = intrinsic["Fn::Join"] as [string, unknown[]];
    return parts.map((part) => resolve(part, resources)).join(separator);
  }
  throw new Error(`template: cannot resolve ${JSON.stringify(value)}`);
}

const INTRINSICS = ["Ref", "Fn::GetAtt", "Fn::Join"];

/** Resolve every intrinsic inside a JSON value (an event pattern naming the state machine by Ref). */
export function resolveDeep(value: unknown, resources: Readonly<Record<string, LocalResource>>): unknown {
  if (Array.isArray(value)) return value.map((item) => resolveDeep(item, resources));
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && INTRINSICS.includes(keys[0]!)) return resolve(value, resources);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveDeep(v, resources)]));
}

/** One Lambda function as the template declares it, and where its bundle is. */
export interface FunctionSpec {
  name: HandlerName;
  logicalId: string;
  /** The deployed function's name (the template leaves it to CloudFormation; we make one up). */
  functionName: string;
  arn: string;
  /** The deployment's published version of it ("1", "2" …), or $LATEST for a function with none. */
  version: string;
  /** The template's AWS::Lambda::Version of it (the task functions have one), and its qualified ARN. */
  versionLogicalId?: string;
  versionArn?: string;
  /** `index.handler`: the file (without extension) and export Lambda loads. */
  handler: string;
  /** The asset directory CDK staged: Lambda's task root. */
  taskRoot: string;
  /** The template's Environment.Variables, unresolved. */
  environment: Record<string, unknown>;
  timeoutSeconds: number;
  memorySize: number;
}

/**
 * Every function of the synthesized stack, read from the template (not from the construct's props);
 * a function with an AWS::Lambda::Version is published as `version`, the number this deployment gives it.
 */
export function functionSpecs(s: Synthesized, outdir: string, version = 1): FunctionSpec[] {
  const template = s.template.toJSON().Resources as Template;
  const versions = Object.entries(template).filter(([, r]) => r.Type === "AWS::Lambda::Version");
  return (Object.entries(s.functionIds) as [HandlerName, string][]).map(([name, logicalId]) => {
    const properties = template[logicalId]?.Properties ?? {};
    const functionName = `${s.stack.stackName}-${logicalId}`.slice(0, 64);
    const arn = `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${functionName}`;
    const published = versions.find(
      ([, r]) => (r.Properties?.FunctionName as { Ref?: string } | undefined)?.Ref === logicalId,
    );
    return {
      name,
      logicalId,
      functionName,
      arn,
      ...(published
        ? { version: String(version), versionLogicalId: published[0], versionArn: `${arn}:${version}` }
        : { version: "$LATEST" }),
      handler: properties.Handler as string,
      taskRoot: dirname(bundleFile(s, outdir, name)),
      environment: ((properties.Environment as { Variables?: Record<string, unknown> } | undefined)
        ?.Variables ?? {}) as Record<string, unknown>,
      timeoutSeconds: (properties.Timeout as number | undefined) ?? 3,
      memorySize: (properties.MemorySize as number | undefined) ?? 128,
    };
  });
}

/** The one resource of a type in the template, with its logical id. */
export function onlyResource(
  s: Synthesized,
  type: string,
): { logicalId: string; properties: Record<string, unknown> } {
  const found = Object.entries(s.template.findResources(type));
  if (found.length !== 1) throw new Error(`template: expected one ${type}, found ${found.length}`);
  const [logicalId, resource] = found[0]!;
  return { logicalId, properties: (resource.Properties ?? {}) as Record<string, unknown> };
}

/** The state machine's definition as deployed: DefinitionString with DefinitionSubstitutions filled. */
export function deployedDefinition(
  properties: Record<string, unknown>,
  resources: Readonly<Record<string, LocalResource>>,
): Record<string, unknown> {
  let text = resolve(properties.DefinitionString, resources);
  const substitutions = (properties.DefinitionSubstitutions ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(substitutions)) {
    text = text.replaceAll(`\${${key}}`, resolve(value, resources));
  }
  const left = /\$\{[A-Za-z0-9]+\}/.exec(text);
  if (left) throw new Error(`state machine definition: ${left[0]} has no substitution`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Each Task state's name (inside Maps too) and its Resource: how the local runner routes a task. */
export function taskResources(definition: Record<string, unknown>): Record<string, string> {
  const tasks: Record<string, string> = {};
  const walk = (states: Record<string, Record<string, unknown>>) => {
    for (const [name, state] of Object.entries(states)) {
      if (state.Type === "Task") {
        if (tasks[name] !== undefined) throw new Error(`two Task states are named ${name}`);
        tasks[name] = state.Resource as string;
      }
      const inner = (state.ItemProcessor ?? state.Iterator) as { States?: never } | undefined;
      if (inner?.States) walk(inner.States);
      for (const branch of (state.Branches ?? []) as { States: never }[]) walk(branch.States);
    }
  };
  walk(definition.States as Record<string, Record<string, unknown>>);
  return tasks;
}
