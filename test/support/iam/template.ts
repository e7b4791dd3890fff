import type { HandlerName } from "../../../cdk/runlogFunction.ts";
import { ACCOUNT, REGION } from "./awsCalls.ts";

/** A synthesized template as JSON (aws-cdk-lib/assertions' `Template.toJSON()`). */
export interface TemplateJson {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
}

/** An IAM policy document with every intrinsic resolved to plain strings. */
export interface PolicyDocument {
  Version: string;
  Statement: Statement[];
}
export interface Statement {
  Effect: "Allow" | "Deny";
  Action: string | string[];
  Resource: string | string[];
  Condition?: unknown;
  /** Only in a resource policy (a key's). */
  Principal?: unknown;
}

/** One policy attached to a function's role: where it came from, and its document. */
export interface RolePolicy {
  name: string;
  document: PolicyDocument;
}

const PSEUDO: Record<string, string> = {
  "AWS::Partition": "aws",
  "AWS::Region": REGION,
  "AWS::AccountId": ACCOUNT,
  "AWS::URLSuffix": "amazonaws.com",
};

/** The property holding each resource type's name, where the template may set one. */
const NAME_PROPERTY: Record<string, string> = {
  "AWS::DynamoDB::Table": "TableName",
  "AWS::StepFunctions::StateMachine": "StateMachineName",
  "AWS::Logs::LogGroup": "LogGroupName",
  "AWS::SQS::Queue": "QueueName",
  "AWS::Lambda::Function": "FunctionName",
  "AWS::IAM::Role": "RoleName",
  "AWS::SNS::Topic": "TopicName",
  "AWS::Events::EventBus": "Name",
};

const arn = (service: string, resource: string) => `arn:aws:${service}:${REGION}:${ACCOUNT}:${resource}`;

/** What `Ref` and each `Fn::GetAtt` of a resource type are, given the resource's name. */
const ATTRIBUTES: Record<string, (name: string) => Record<string, string>> = {
  "AWS::DynamoDB::Table": (name) => ({
    Ref: name,
    Arn: arn("dynamodb", `table/${name}`),
    StreamArn: arn("dynamodb", `table/${name}/stream/2026-12-01T00:00:00.000`),
  }),
  "AWS::Events::EventBus": (name) => ({ Ref: name, Arn: arn("events", `event-bus/${name}`), Name: name }),
  "AWS::StepFunctions::StateMachine": (name) => ({
    Ref: arn("states", `stateMachine:${name}`),
    Arn: arn("states", `stateMachine:${name}`),
    Name: name,
  }),
  "AWS::Logs::LogGroup": (name) => ({ Ref: name, Arn: arn("logs", `log-group:${name}:*`) }),
  "AWS::SQS::Queue": (name) => ({
    Ref: `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${name}`,
    Arn: arn("sqs", name),
    QueueName: name,
  }),
  "AWS::Lambda::Function": (name) => ({ Ref: name, Arn: arn("lambda", `function:${name}`) }),
  "AWS::IAM::Role": (name) => ({ Ref: name, Arn: `arn:aws:iam::${ACCOUNT}:role/${name}` }),
  "AWS::SNS::Topic": (name) => ({ Ref: arn("sns", name), TopicArn: arn("sns", name), TopicName: name }),
  // A secret's name carries the six random characters Secrets Manager adds to its ARN.
  "AWS::SecretsManager::Secret": (name) => ({ Ref: arn("secretsmanager", `secret:${name}`) }),
};

/**
 * Resolves the intrinsics CDK writes into policies (Ref, Fn::GetAtt, Fn::Join, Fn::Select,
 * Fn::Split) to the ARNs the stack's resources would have in ACCOUNT/REGION. A resource is named
 * by `names[logicalId]`, else by the name its template sets, else by its logical id, so the
 * calls a test records against its own table or state machine name meet the right ARNs.
 */
export function resolver(template: TemplateJson, names: Record<string, string> = {}) {
  const attribute = (id: string, name: string): string => {
    const resource = template.Resources[id];
    if (!resource) throw new Error(`the template has no resource ${id}`);
    const property = NAME_PROPERTY[resource.Type];
    const given = property === undefined ? undefined : resource.Properties?.[property];
    const attributes = ATTRIBUTES[resource.Type]?.(names[id] ?? (typeof given === "string" ? given : id));
    const value = attributes?.[name];
    if (value === undefined) throw new Error(`cannot resolve ${name} of ${id} (${resource.Type})`);
    return value;
  };
  const resolve = (value: unknown): unknown => {
    if (typeof value !== "object" || value === null) return value;
    if (Array.isArray(value)) return value.map(resolve);
    const entries = Object.entries(value);
    const [[fn, args] = []] = entries;
    const intrinsic = entries.length === 1 && fn !== undefined && (fn === "Ref" || fn.startsWith("Fn::"));
    // A plain object (a policy document, a statement, a condition): resolve what it holds.
    if (!intrinsic) return Object.fromEntries(entries.map(([name, inner]) => [name, resolve(inner)]));
    switch (fn) {
      case "Ref":
        return PSEUDO[args as string] ?? attribute(args as string, "Ref");
      case "Fn::GetAtt": {
        const [id, name] = args as [string, string];
        return attribute(id, name);
      }
      case "Fn::Join": {
        const [separator, parts] = args as [string, unknown[]];
        return (resolve(parts) as unknown[]).join(separator);
      }
      case "Fn::Select": {
        const [index, list] = args as [number, unknown];
        return (resolve(list) as unknown[])[Number(index)];
      }
      case "Fn::Split": {
        const [separator, text] = args as [string, unknown];
        return String(resolve(text)).split(separator);
      }
      default:
        throw new Error(`cannot resolve the intrinsic ${fn}`);
    }
  };
  return resolve;
}

const refersTo = (roles: unknown, roleId: string) =>
  Array.isArray(roles) && roles.some((role) => (role as { Ref?: string }).Ref === roleId);

/**
 * Every policy of each function's role, resolved: its inline policies and the AWS::IAM::Policy
 * resources attached to it. A managed policy (whose document is not in the template) is refused.
 */
export function functionPolicies(
  template: TemplateJson,
  functionIds: Record<HandlerName, string>,
  names: Record<string, string> = {},
  /** AWS managed policies (by name after `policy/`) left out: ones for Lambda itself, not the code. @default none */
  lambdaManagedPolicies: readonly string[] = [],
): Record<HandlerName, RolePolicy[]> {
  const resolve = resolver(template, names);
  const policiesOf = (fn: HandlerName): RolePolicy[] => {
    const props = template.Resources[functionIds[fn]]?.Properties ?? {};
    const [roleId] = ((props.Role as { "Fn::GetAtt"?: [string, string] })["Fn::GetAtt"] ?? []) as string[];
    const role = roleId === undefined ? undefined : template.Resources[roleId];
    if (roleId === undefined || role?.Type !== "AWS::IAM::Role") {
      throw new Error(`function ${fn} has no role of this stack`);
    }
    const managed = ((role.Properties?.ManagedPolicyArns as unknown[]) ?? []).filter(
      (arn) =>
        !lambdaManagedPolicies.some((name) => String(resolve(arn)).endsWith(`:iam::aws:policy/${name}`)),
    );
    if (managed.length > 0) {
      throw new Error(`the role of ${fn} has managed policies, whose documents the template does not hold`);
    }
    const inline = (
      (role.Properties?.Policies ?? []) as { PolicyName: string; PolicyDocument: unknown }[]
    ).map((policy) => ({
      name: `${roleId}/${policy.PolicyName}`,
      document: resolve(policy.PolicyDocument) as PolicyDocument,
    }));
    const attached = Object.entries(template.Resources)
      .filter(
        ([, r]) =>
          ["AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"].includes(r.Type) &&
          refersTo(r.Properties?.Roles, roleId),
      )
      .map(([id, r]) => ({ name: id, document: resolve(r.Properties?.PolicyDocument) as PolicyDocument }));
    return [...inline, ...attached];
  };
  return Object.fromEntries(
    (Object.keys(functionIds) as HandlerName[]).map((fn) => [fn, policiesOf(fn)]),
  ) as Record<HandlerName, RolePolicy[]>;
}
