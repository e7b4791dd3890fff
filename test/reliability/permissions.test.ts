import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Duration, Stack } from "aws-cdk-lib";
import { Key } from "aws-cdk-lib/aws-kms";
import { beforeAll, describe, expect, it } from "vitest";
import { CREATE_ACTIONS, STORE_ACTIONS } from "../../cdk/grants.ts";
import { type HandlerName, VPC_ACCESS_POLICY } from "../../cdk/runlogFunction.ts";
import { DEFAULT_TABLE_NAME } from "../../lib/runtime/store.ts";
import { HANDLERS, isolatedVpc, type Synthesized, synthesize, synthesizeConstruct } from "../cdk/synth.ts";
import type { AwsCall } from "../support/iam/awsCalls.ts";
import { deniedCalls, unusedGrants } from "../support/iam/evaluate.ts";
import { recordHandlerTests } from "../support/iam/handlerCalls.ts";
import { DEFAULT_KEY_POLICY, kmsCallsBehind } from "../support/iam/kmsCalls.ts";
import { functionPolicies, type RolePolicy, type TemplateJson } from "../support/iam/template.ts";

/** The names test/functions gives what the stack would create: its table, state machine and secret. */
const TABLE = DEFAULT_TABLE_NAME;
const MACHINE = "RunMachine";
const SECRET_NAME = "runlog/model-key";
const DEAD_LETTERS = "DeadLetters";
const LIFECYCLE_DEAD_LETTERS = "LifecycleDeadLetters";
/** The bus test/functions/publishLifecycle.test.ts publishes on. */
const BUS = "runlog-test-events";

/** ARN patterns of the stack as the template resolves them (test/support/iam/template.ts). */
const TABLE_ARN = `arn:aws:dynamodb:us-east-1:123456789012:table/${TABLE}`;
let logGroups: Record<HandlerName, string>;
let deadLetters: string;

/**
 * The grants no handler test uses, and why each is needed all the same. Everything else a role
 * allows, some recorded call used; a grant added without a use, or a use that stops, fails here.
 */
function grantsNoTestUses(): string[] {
  const table = (fn: HandlerName, ...actions: string[]) =>
    actions.map((a) => `${fn} dynamodb:${a} ${TABLE_ARN}`);
  return [
    ...HANDLERS.flatMap((fn) => [
      // The Lambda runtime writes the function's logs and X-Ray segments (tracing is active), not its code.
      `${fn} logs:CreateLogStream arn:aws:logs:us-east-1:123456789012:log-group:${logGroups[fn]}:*`,
      `${fn} logs:PutLogEvents arn:aws:logs:us-east-1:123456789012:log-group:${logGroups[fn]}:*`,
      `${fn} xray:PutTelemetryRecords *`,
      `${fn} xray:PutTraceSegments *`,
      // An event past 400 KB keeps its body in chunks, read back in one BatchGetItem
      // (test/adapters/dynamodb/bigEvents.test.ts); no handler test writes one.
      ...(fn === "redriveDeadLetters" ? [] : table(fn, "BatchGetItem")),
    ]),
    // Lambda itself sends an async invocation that failed after its retries to the dead-letter queue.
    ...(["startRun", "steerRun", "resume", "sweeper"] as const).map(
      (fn) => `${fn} sqs:SendMessage ${deadLetters}`,
    ),
    // The steps' appends read their item back after the SDK retried a put whose answer was lost
    // (test/adapters/dynamodb/lostAnswers.test.ts), link big payloads and repair a missing head
    // (UpdateItem): store paths the handler tests do not reach for these three. RunTool's GetItem is
    // reached: a sub-agent call reads its child's head (test/functions/subagents.test.ts).
    ...(["callModel", "recordModelFailure"] as const).flatMap((fn) => table(fn, "GetItem", "UpdateItem")),
    ...table("runTool", "UpdateItem"),
    // The sweeper asks Step Functions whether the execution holding a lease still runs; its test's
    // runs need not (its PutItem, appending `resumed`, test/functions/autoRedrive.test.ts uses).
    `sweeper states:DescribeExecution arn:aws:states:us-east-1:123456789012:execution:${MACHINE}:*`,
    // Lambda's event source mapping, not the publisher's code, reads the table's stream, and
    // sends a batch that failed after its retries to the publisher's dead-letter queue.
    "publishLifecycle dynamodb:ListStreams *",
    ...["DescribeStream", "GetRecords", "GetShardIterator"].map(
      (a) => `publishLifecycle dynamodb:${a} ${TABLE_ARN}/stream/2026-12-01T00:00:00.000`,
    ),
    ...["GetQueueAttributes", "GetQueueUrl", "SendMessage"].map(
      (a) => `publishLifecycle sqs:${a} arn:aws:sqs:us-east-1:123456789012:${LIFECYCLE_DEAD_LETTERS}`,
    ),
    // What reads an event reads: the head (GetItem) when a run's start is looked up is not reached by its test.
    ...table("publishLifecycle", "GetItem"),
  ].sort();
}

/** The names the template's resources get, so the recorded calls' ARNs meet the policies' ARNs. */
const namesOf = (s: Synthesized): Record<string, string> => ({
  [s.logicalId(s.runlog.table)]: TABLE,
  [s.logicalId(s.runlog.stateMachine)]: MACHINE,
  // The queue and the functions test/functions/redriveDeadLetters.test.ts redrives to.
  [s.logicalId(s.runlog.deadLetters)]: DEAD_LETTERS,
  [s.functionIds.startRun]: "StartRun",
  [s.functionIds.steerRun]: "SteerRun",
  [s.functionIds.resume]: "Resume",
  [s.functionIds.sweeper]: "Sweeper",
  [s.logicalId(s.runlog.lifecycle!.deadLetters)]: LIFECYCLE_DEAD_LETTERS,
  [s.logicalId(s.runlog.eventBus)]: BUS,
});
const KEY_ARN = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";

let s: Synthesized;
let keyedPolicies: Record<HandlerName, RolePolicy[]>;
let policies: Record<HandlerName, RolePolicy[]>;
let calls: AwsCall[];

beforeAll(async () => {
  s = synthesize({ modelKeySecret: SECRET_NAME });
  policies = functionPolicies(s.template.toJSON() as TemplateJson, s.functionIds, namesOf(s));
  // A platform team's stack: in a VPC without NAT, sized per function, the table, the queues and
  // the secret under one customer-managed key (another stack's, by ARN).
  const keyed = synthesizeConstruct((stack) => ({
    agentsModule: join(import.meta.dirname, "..", "cdk", "fixtures", "agents.ts"),
    modelKeySecret: SECRET_NAME,
    encryptionKey: Key.fromKeyArn(new Stack(), "Key", KEY_ARN),
    vpc: isolatedVpc(stack),
    vpcEndpoints: "create",
    functions: {
      callModel: { memorySize: 1024 },
      runTool: { memorySize: 3008, timeout: Duration.minutes(5) },
    },
  }));
  // The VPC access policy is Lambda's, to attach the function: the code calls no EC2 action.
  keyedPolicies = functionPolicies(
    keyed.template.toJSON() as TemplateJson,
    keyed.functionIds,
    namesOf(keyed),
    [VPC_ACCESS_POLICY],
  );
  logGroups = Object.fromEntries(
    HANDLERS.map((fn) => [fn, s.logicalId(s.runlog.functions[fn].logGroup)]),
  ) as Record<HandlerName, string>;
  deadLetters = `arn:aws:sqs:us-east-1:123456789012:${DEAD_LETTERS}`;
  calls = await recordHandlerTests();
}, 900_000);

describe("the functions' IAM roles, checked against every AWS call the handler tests make", () => {
  it("see calls of all eleven functions", () => {
    expect([...new Set(calls.map((call) => call.fn))].sort()).toEqual([...HANDLERS].sort());
  });

  it("allow every call a function makes", async () => {
    const denied = await deniedCalls(calls, policies);
    expect(denied.map((d) => `${d.fn} may not ${d.action} on ${d.resource}: ${d.why}`)).toEqual([]);
  });

  it("grant nothing no call uses, but for the grants listed with why no test reaches them", () => {
    expect(unusedGrants(calls, policies)).toEqual(grantsNoTestUses());
  });
});

describe("the evaluator", () => {
  const call = (fn: HandlerName, action: string, resource: string): AwsCall => ({ fn, action, resource });
  const INDEX = `arn:aws:dynamodb:us-east-1:123456789012:table/${TABLE}/index/byStatusShard`;

  it("denies what a role does not allow: another action, another function's grant, a Scan", async () => {
    const wrong = [
      call(
        "callModel",
        "states:StartExecution",
        `arn:aws:states:us-east-1:123456789012:stateMachine:${MACHINE}`,
      ),
      call("api", "dynamodb:Scan", INDEX),
      call(
        "startRun",
        "secretsmanager:GetSecretValue",
        `arn:aws:secretsmanager:us-east-1:123456789012:secret:${SECRET_NAME}-AbCdEf`,
      ),
    ];
    expect((await deniedCalls(wrong, policies)).map((d) => [d.fn, d.action, d.why])).toEqual([
      ["callModel", "states:StartExecution", "ImplicitlyDenied"],
      ["api", "dynamodb:Scan", "ImplicitlyDenied"],
      ["startRun", "secretsmanager:GetSecretValue", "ImplicitlyDenied"],
    ]);
    expect(await deniedCalls([call("api", "dynamodb:Query", INDEX)], policies)).toEqual([]);
  });

  it("lets the dead-letter redrive invoke only the four event functions, and only receive and delete its letters", async () => {
    const fn = (name: string) => `arn:aws:lambda:us-east-1:123456789012:function:${name}`;
    const wrong = [
      call("redriveDeadLetters", "lambda:InvokeFunction", fn(s.functionIds.callModel)),
      call("redriveDeadLetters", "lambda:InvokeFunction", fn("Elsewhere-StartRun")),
      call("redriveDeadLetters", "lambda:InvokeFunction", `${fn("StartRun")}:$LATEST`),
      call("redriveDeadLetters", "sqs:SendMessage", deadLetters),
      call("redriveDeadLetters", "sqs:PurgeQueue", deadLetters),
      call("sweeper", "lambda:InvokeFunction", fn("Resume")),
      call("startRun", "sqs:ReceiveMessage", deadLetters),
      // A steering event neither creates runs nor reads the dead letters.
      call("steerRun", "dynamodb:DeleteItem", TABLE_ARN),
      call("steerRun", "sqs:ReceiveMessage", deadLetters),
    ];
    expect((await deniedCalls(wrong, policies)).map((d) => `${d.fn} ${d.action} ${d.resource}`)).toEqual(
      wrong.map((c) => `${c.fn} ${c.action} ${c.resource}`),
    );
    const right = ["StartRun", "SteerRun", "Resume", "Sweeper"].map((name) =>
      call("redriveDeadLetters", "lambda:InvokeFunction", fn(name)),
    );
    expect(await deniedCalls(right, policies)).toEqual([]);
  });

  it("lets the lifecycle publisher put events on its own bus only, and write nothing to the table", async () => {
    const bus = (name: string) => `arn:aws:events:us-east-1:123456789012:event-bus/${name}`;
    const wrong = [
      call("publishLifecycle", "events:PutEvents", bus("default")),
      call("publishLifecycle", "events:PutEvents", bus("someone-elses")),
      call("publishLifecycle", "dynamodb:PutItem", TABLE_ARN),
      call("publishLifecycle", "dynamodb:UpdateItem", TABLE_ARN),
      call("api", "events:PutEvents", bus(BUS)),
      call("sweeper", "events:PutEvents", bus(BUS)),
    ];
    expect((await deniedCalls(wrong, policies)).map((d) => `${d.fn} ${d.action} ${d.resource}`)).toEqual(
      wrong.map((c) => `${c.fn} ${c.action} ${c.resource}`),
    );
    expect(await deniedCalls([call("publishLifecycle", "events:PutEvents", bus(BUS))], policies)).toEqual([]);
  });

  it("counts a grant used by one function only for that function", () => {
    const unused = unusedGrants([call("api", "dynamodb:Query", INDEX)], policies);
    expect(unused).not.toContain(`api dynamodb:Query ${INDEX}`);
    expect(unused).toContain(`sweeper dynamodb:Query ${INDEX}`);
  });
});

describe("the functions' IAM roles in a VPC without NAT, sized, with a customer-managed key (encryptionKey)", () => {
  const call = (fn: HandlerName, action: string, resource: string): AwsCall => ({ fn, action, resource });
  const via = (fn: HandlerName, action: string, service: string, resource = KEY_ARN): AwsCall => ({
    ...call(fn, action, resource),
    context: { "kms:ViaService": `${service}.us-east-1.amazonaws.com` },
  });
  const keyPolicy = (resource: string) =>
    resource.startsWith("arn:aws:kms:") ? DEFAULT_KEY_POLICY : undefined;
  /** What Lambda does with a function's role that no handler test records: dead letters sent, the stream read. */
  const lambdaCalls = () => [
    ...(["startRun", "steerRun", "resume", "sweeper"] as const).map((fn) =>
      call(fn, "sqs:SendMessage", deadLetters),
    ),
    call(
      "publishLifecycle",
      "sqs:SendMessage",
      `arn:aws:sqs:us-east-1:123456789012:${LIFECYCLE_DEAD_LETTERS}`,
    ),
    call("publishLifecycle", "dynamodb:GetRecords", `${TABLE_ARN}/stream/2026-12-01T00:00:00.000`),
  ];

  it("still allow every call a function makes", async () => {
    expect(await deniedCalls(calls, keyedPolicies)).toEqual([]);
  });

  it("allow the kms: calls DynamoDB, SQS and Secrets Manager make with each function's role", async () => {
    const kms = kmsCallsBehind([...calls, ...lambdaCalls()], KEY_ARN);
    // Every function uses something under the key.
    expect([...new Set(kms.map((c) => c.fn))].sort()).toEqual([...HANDLERS].sort());
    const denied = await deniedCalls(kms, keyedPolicies, keyPolicy);
    expect(
      denied.map((d) => `${d.fn} may not ${d.action} via ${d.context?.["kms:ViaService"]}: ${d.why}`),
    ).toEqual([]);
  });

  it("deny the kms: calls a function has no use for, another key, and the key used directly", async () => {
    const wrong = [
      via("runTool", "kms:Decrypt", "sqs"),
      via("api", "kms:Decrypt", "secretsmanager"),
      via("redriveDeadLetters", "kms:Decrypt", "dynamodb"),
      via("redriveDeadLetters", "kms:GenerateDataKey", "sqs"),
      via("publishLifecycle", "kms:GenerateDataKey", "dynamodb"),
      via("callModel", "kms:Decrypt", "dynamodb", KEY_ARN.replace("1234abcd", "9999abcd")),
      call("callModel", "kms:Decrypt", KEY_ARN),
      via("finish", "kms:CreateGrant", "dynamodb"),
    ];
    expect(
      (await deniedCalls(wrong, keyedPolicies, keyPolicy)).map((d) => `${d.fn} ${d.action} ${d.why}`),
    ).toEqual(wrong.map((c) => `${c.fn} ${c.action} ImplicitlyDenied`));
    // Without the key, no role holds a kms: grant at all.
    expect(
      await deniedCalls([via("callModel", "kms:Decrypt", "dynamodb")], policies, keyPolicy),
    ).toHaveLength(1);
  });
});

describe("the store's grant", () => {
  it("is every DynamoDB operation the store's code sends, so a path no handler test reaches is granted too", () => {
    const dir = join(import.meta.dirname, "..", "..", "lib", "adapters", "dynamodb");
    const sent = new Set<string>();
    // table.ts creates and describes the table for local use (DynamoDB Local); the stack creates it on AWS.
    for (const file of readdirSync(dir).filter((name) => name.endsWith(".ts") && name !== "table.ts")) {
      for (const [, operation] of readFileSync(join(dir, file), "utf8").matchAll(/new (\w+)Command\(/g)) {
        sent.add(`dynamodb:${operation}`);
      }
    }
    expect([...sent].sort()).toEqual([...STORE_ACTIONS, ...CREATE_ACTIONS].sort());
  });
});
