import { join } from "node:path";
import { Duration, type Stack } from "aws-cdk-lib";
import { Annotations, Match } from "aws-cdk-lib/assertions";
import { Table } from "aws-cdk-lib/aws-dynamodb";
import { EventBus } from "aws-cdk-lib/aws-events";
import { Alias, type IKey, Key } from "aws-cdk-lib/aws-kms";
import { type ISecret, Secret } from "aws-cdk-lib/aws-secretsmanager";
import { AwsSolutionsChecks } from "cdk-nag";
import { afterAll, describe, expect, it } from "vitest";
import type { RunlogEncryptionKey } from "../../cdk/encryption.ts";
import type { RunlogProps } from "../../cdk/props.ts";
import { RunlogPropsError } from "../../cdk/propsError.ts";
import type { HandlerName } from "../../cdk/runlogFunction.ts";
import { CFN_LINT_TIMEOUT, cfnLinter } from "./cfnLint.ts";
import { HANDLERS, isolatedVpc, type Synthesized, synthesizeConstruct } from "./synth.ts";

/** Issue 35 (3): customer-managed keys on everything runlog makes, each role granted what it uses. */
const AGENTS = join(import.meta.dirname, "fixtures", "agents.ts");
const SECRET = "runlog/model-key";

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}
const resources = (s: Synthesized, type: string) =>
  Object.entries((s.template.toJSON() as { Resources: Record<string, Resource> }).Resources).filter(
    ([, r]) => r.Type === type,
  );
const keyRef = (s: Synthesized, key: IKey) => ({ "Fn::GetAtt": [s.logicalId(key), "Arn"] });

/** Each role's kms: statements as "<actions> via <service>", from every policy attached to it. */
function kmsGrants(s: Synthesized, roleId: string): string[] {
  return resources(s, "AWS::IAM::Policy")
    .filter(([, p]) => (p.Properties.Roles as { Ref?: string }[]).some((r) => r.Ref === roleId))
    .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement)
    .filter((st) => JSON.stringify(st.Action).includes("kms:"))
    .map((st) => {
      const via = (st.Condition as { StringEquals?: Record<string, string> } | undefined)?.StringEquals?.[
        "kms:ViaService"
      ];
      return `${[st.Action].flat().join(",")} via ${via?.split(".")[0]}`;
    })
    .sort();
}
const grantsOf = (s: Synthesized, fn: HandlerName) => kmsGrants(s, s.logicalId(s.runlog.functions[fn].role!));

const TABLE_WRITE = "kms:Decrypt,kms:DescribeKey,kms:Encrypt,kms:GenerateDataKey via dynamodb";
const TABLE_READ = "kms:Decrypt,kms:DescribeKey via dynamodb";
const QUEUE_SEND = "kms:Decrypt,kms:GenerateDataKey via sqs";
/** What each function does with encrypted data, and so all the kms: actions its role may use. */
const EXPECTED: Record<HandlerName, string[]> = {
  callModel: [TABLE_WRITE, "kms:Decrypt via secretsmanager"],
  runTool: [TABLE_WRITE],
  recordModelFailure: [TABLE_WRITE],
  finish: [TABLE_WRITE],
  handoff: [TABLE_WRITE],
  // The event functions' failed async invocations go to the dead letters, sent with their role.
  startRun: [TABLE_WRITE, QUEUE_SEND],
  steerRun: [TABLE_WRITE, QUEUE_SEND],
  resume: [TABLE_WRITE, QUEUE_SEND],
  sweeper: [TABLE_WRITE, QUEUE_SEND],
  api: [TABLE_WRITE],
  redriveDeadLetters: ["kms:Decrypt via sqs"],
  publishLifecycle: [TABLE_READ, QUEUE_SEND],
};

const withKey = (more: (stack: Stack, key: Key) => Partial<RunlogProps> = () => ({})) => {
  let key: Key | undefined;
  const s = synthesizeConstruct((stack) => {
    key = new Key(stack, "Key", { enableKeyRotation: true });
    return { agentsModule: AGENTS, modelKeySecret: SECRET, encryptionKey: key, ...more(stack, key) };
  });
  return { s, key: key! };
};

describe("encryptionKey: one key", () => {
  const { s, key } = withKey();

  it("encrypts the table with it (customer managed)", () => {
    s.template.hasResourceProperties("AWS::DynamoDB::Table", {
      SSESpecification: { SSEEnabled: true, SSEType: "KMS", KMSMasterKeyId: keyRef(s, key) },
    });
  });

  it("encrypts every log group: the functions', the state machine's and the API's access logs", () => {
    const groups = resources(s, "AWS::Logs::LogGroup");
    expect(groups.length).toBe(HANDLERS.length + 2);
    for (const [id, group] of groups) expect(group.Properties.KmsKeyId, id).toEqual(keyRef(s, key));
  });

  it("encrypts both dead-letter queues with it instead of SQS-managed keys", () => {
    const queues = resources(s, "AWS::SQS::Queue");
    expect(queues.map(([id]) => id).sort()).toEqual(
      [s.logicalId(s.runlog.deadLetters), s.logicalId(s.runlog.lifecycle!.deadLetters)].sort(),
    );
    for (const [id, queue] of queues) {
      expect(queue.Properties.KmsMasterKeyId, id).toEqual(keyRef(s, key));
      expect(queue.Properties.SqsManagedSseEnabled, id).toBeUndefined();
    }
  });

  it("encrypts the bus it makes", () => {
    s.template.hasResourceProperties("AWS::Events::EventBus", { KmsKeyIdentifier: keyRef(s, key) });
  });

  it("lets CloudWatch Logs (this region's) and EventBridge (this account's rules and bus) use the key, no one else", () => {
    const policy = s.template.toJSON().Resources[s.logicalId(key)].Properties.KeyPolicy as {
      Statement: { Sid?: string; Principal: Record<string, unknown>; Condition?: unknown }[];
    };
    const bySid = Object.fromEntries(policy.Statement.map((st) => [st.Sid ?? "root", st]));
    expect(Object.keys(bySid).sort()).toEqual([
      "RunlogEventBus",
      "RunlogLogGroups",
      "RunlogRuleDeadLetters",
      "root",
    ]);
    expect(bySid.RunlogLogGroups!.Principal).toEqual({ Service: "logs.us-east-1.amazonaws.com" });
    expect(JSON.stringify(bySid.RunlogLogGroups!.Condition)).toContain(
      ":logs:us-east-1:123456789012:log-group:*",
    );
    expect(bySid.RunlogRuleDeadLetters!.Principal).toEqual({ Service: "events.amazonaws.com" });
    expect(JSON.stringify(bySid.RunlogEventBus!.Condition)).toContain("event-bus/UserStack.Agents-Events");
    // No statement names any principal but the account's root (CDK's default) and the two services.
    for (const st of policy.Statement) expect(JSON.stringify(st.Principal)).not.toMatch(/"\*"/);
  });

  it.each(HANDLERS)("grants %s exactly the kms: actions its use of encrypted data needs", (fn) => {
    expect(grantsOf(s, fn)).toEqual([...EXPECTED[fn]].sort());
  });

  it("grants the state machine nothing on the key (Logs encrypts its log group itself)", () => {
    expect(kmsGrants(s, s.logicalId(s.runlog.stateMachine.role))).toEqual([]);
  });

  it("exposes the keys by kind", () => {
    expect(Object.keys(s.runlog.encryptionKeys).sort()).toEqual(["bus", "logs", "queues", "secret", "table"]);
  });

  it("passes cdk-nag", () => {
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(s.runlog);
    const errors = report.violations.filter((v) => v.severity === "error");
    expect(errors.map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath)}`)).toEqual(
      [],
    );
  });
});

describe("encryptionKey: one per kind", () => {
  it("encrypts only the kinds given; the rest keep AWS-managed encryption and no role gets a grant for them", () => {
    let logs: Key | undefined;
    const s = synthesizeConstruct((stack) => {
      logs = new Key(stack, "LogsKey", { enableKeyRotation: true });
      return { agentsModule: AGENTS, modelKeySecret: SECRET, encryptionKey: { logs } };
    });
    for (const [, group] of resources(s, "AWS::Logs::LogGroup")) {
      expect(group.Properties.KmsKeyId).toEqual(keyRef(s, logs!));
    }
    s.template.hasResourceProperties("AWS::DynamoDB::Table", { SSESpecification: Match.absent() });
    for (const [, queue] of resources(s, "AWS::SQS::Queue")) {
      expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
    }
    s.template.hasResourceProperties("AWS::Events::EventBus", { KmsKeyIdentifier: Match.absent() });
    for (const fn of HANDLERS) expect(grantsOf(s, fn), fn).toEqual([]);
  });

  it("grants a table key to the table's users only, and a secret key to CallModel only", () => {
    const s = synthesizeConstruct((stack) => ({
      agentsModule: AGENTS,
      modelKeySecret: SECRET,
      encryptionKey: { table: new Key(stack, "T"), secret: new Key(stack, "S") },
    }));
    for (const fn of HANDLERS) {
      const expected = EXPECTED[fn].filter((grant) => !grant.endsWith("via sqs"));
      expect(grantsOf(s, fn), fn).toEqual([...expected].sort());
    }
  });

  it("grants a given table's own key to the functions that use the table", () => {
    const s = synthesizeConstruct((stack) => {
      // Imported by attributes: used as it is, its key with it.
      const table = Table.fromTableAttributes(stack, "Own", {
        tableName: "runs",
        encryptionKey: new Key(stack, "OwnKey"),
      });
      return { agentsModule: AGENTS, table, encryptionKey: new Key(stack, "Key") };
    });
    expect(grantsOf(s, "runTool")).toEqual([TABLE_WRITE]);
    expect(grantsOf(s, "redriveDeadLetters")).toEqual(["kms:Decrypt via sqs"]);
  });

  it("leaves a secret with a key of its own to that key", () => {
    const s = synthesizeConstruct((stack) => ({
      agentsModule: AGENTS,
      // CDK's classes meet their interfaces only without exactOptionalPropertyTypes.
      modelKeySecret: new Secret(stack, "ModelKey", {
        encryptionKey: new Key(stack, "SecretKey"),
      }) as ISecret,
      encryptionKey: new Key(stack, "Key"),
    }));
    expect(s.runlog.encryptionKeys.secret).toBeUndefined();
    // CallModel decrypts through Secrets Manager with the secret's own key, granted in that key's policy (grants.ts).
    expect(grantsOf(s, "callModel")).toEqual([TABLE_WRITE]);
    const secretKey = s.stack.node.findChild("SecretKey") as Key;
    expect(
      JSON.stringify(s.template.toJSON().Resources[s.logicalId(secretKey)].Properties.KeyPolicy),
    ).toContain(s.logicalId(s.runlog.functions.callModel.role!));
  });

  it("warns, naming the prop, that an imported key's policy must allow CloudWatch Logs and EventBridge", () => {
    const s = synthesizeConstruct((stack) => ({
      agentsModule: AGENTS,
      encryptionKey: Key.fromKeyArn(
        stack,
        "Imported",
        "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
      ),
    }));
    const warnings = Annotations.fromStack(s.stack)
      .findWarning("*", Match.stringLikeRegexp("encryptionKey\\."))
      .map((w) => String(w.entry.data).split(":")[0]);
    expect(warnings.sort()).toEqual(["encryptionKey.bus", "encryptionKey.logs", "encryptionKey.queues"]);
    expect(grantsOf(s, "api")).toEqual([TABLE_WRITE]);
  });
});

describe("encryptionKey: bad props are a synth-time error naming the prop", () => {
  const failing = (
    encryptionKey: (stack: Stack) => unknown,
    more: (stack: Stack) => Partial<RunlogProps> = () => ({}),
  ) => {
    try {
      synthesizeConstruct((stack) => ({
        agentsModule: AGENTS,
        ...more(stack),
        encryptionKey: encryptionKey(stack) as RunlogEncryptionKey,
      }));
    } catch (error) {
      if (error instanceof RunlogPropsError) return error.prop;
      throw error;
    }
    throw new Error("synthesized");
  };
  const key = (stack: Stack) => new Key(stack, "K");

  it.each([
    ["an unknown kind", (stack: Stack) => ({ disk: key(stack) }), undefined, "encryptionKey.disk"],
    ["not a key", () => "arn:aws:kms:us-east-1:123456789012:key/x", undefined, "encryptionKey"],
    ["a kind that is not a key", () => ({ logs: "alias/x" }), undefined, "encryptionKey.logs"],
    [
      "an alias",
      (stack: Stack) => Alias.fromAliasName(stack, "A", "alias/runlog"),
      undefined,
      "encryptionKey",
    ],
    [
      "a table key with a given table",
      (stack: Stack) => ({ table: key(stack) }),
      (stack: Stack) => ({
        table: Table.fromTableName(stack, "T", "runs"),
      }),
      "encryptionKey.table",
    ],
    [
      "a bus key with a given bus",
      (stack: Stack) => ({ bus: key(stack) }),
      (stack: Stack) => ({ eventBus: EventBus.fromEventBusName(stack, "B", "theirs") }),
      "encryptionKey.bus",
    ],
    [
      "a secret key with no secret",
      (stack: Stack) => ({ secret: key(stack) }),
      undefined,
      "encryptionKey.secret",
    ],
  ])("%s", (_, encryptionKey, more, prop) => {
    expect(failing(encryptionKey, more)).toBe(prop);
  });

  it.each([
    ["imported by name", (stack: Stack) => Alias.fromAliasName(stack, "A", "alias/runlog"), "(alias/runlog)"],
    [
      "made in the app",
      (stack: Stack) => new Alias(stack, "Made", { aliasName: "alias/made", targetKey: key(stack) }),
      "(the construct UserStack/Made)",
    ],
  ])("names an alias %s as it was written, not as unresolved tokens", (_, alias, shown) => {
    let message = "";
    try {
      synthesizeConstruct((stack) => ({ agentsModule: AGENTS, encryptionKey: alias(stack) }));
    } catch (error) {
      if (!(error instanceof RunlogPropsError)) throw error;
      message = error.message;
    }
    expect(message).toContain(`must be a key, not an alias ${shown}`);
    expect(message).not.toContain("${Token[");
  });
});

/** Issue 35's "Done means": a VPC without NAT, sizes per function, a customer key and two tool groups. */
describe("a platform team's stack", () => {
  const { s } = withKey((stack) => ({
    toolGroups: {
      payments: { tools: ["issue_refund"], memorySize: 1024 },
      mail: { tools: ["send_email"] },
    },
    vpc: isolatedVpc(stack),
    vpcEndpoints: "create",
    functions: {
      callModel: { memorySize: 1024, timeout: Duration.minutes(14) },
      runTool: { memorySize: 3008, timeout: Duration.minutes(5), reservedConcurrency: 20 },
    },
  }));
  const linter = cfnLinter();
  afterAll(() => linter.dispose());

  it("gives each tool group's role the key as RunTool's role has it, and encrypts its log group", () => {
    for (const group of ["payments", "mail"]) {
      const { role } = s.runlog.toolGroup(group);
      expect(kmsGrants(s, s.logicalId(role)), group).toEqual(EXPECTED.runTool);
    }
    const encrypted = resources(s, "AWS::Logs::LogGroup").filter(
      ([, r]) => r.Properties.KmsKeyId !== undefined,
    );
    expect(encrypted.length).toBe(resources(s, "AWS::Logs::LogGroup").length);
  });

  it("passes cdk-nag", () => {
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(s.runlog);
    const errors = report.violations.filter((v) => v.severity === "error");
    expect(errors.map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath)}`)).toEqual(
      [],
    );
  });

  it(
    "passes cfn-lint, and cfn-lint sees a key that is not one (the check is live)",
    () => {
      const template = s.template.toJSON() as { Resources: Record<string, Resource> };
      expect(linter.lint(template)).toEqual({ status: 0, output: "" });
      const broken = structuredClone(template);
      const [id] = resources(s, "AWS::DynamoDB::Table")[0]!;
      (broken.Resources[id]!.Properties.SSESpecification as Record<string, unknown>).SSEType = "CMK";
      expect(linter.lint(broken).status).not.toBe(0);
    },
    CFN_LINT_TIMEOUT,
  );
});
