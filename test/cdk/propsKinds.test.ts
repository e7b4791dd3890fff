import { join } from "node:path";
import { App, Duration, Lazy, RemovalPolicy, Stack, Token } from "aws-cdk-lib";
import { Annotations, Match } from "aws-cdk-lib/assertions";
import { AttributeType, type ITable, Table } from "aws-cdk-lib/aws-dynamodb";
import { EventBus, type IEventBus } from "aws-cdk-lib/aws-events";
import { AccountPrincipal } from "aws-cdk-lib/aws-iam";
import { Key } from "aws-cdk-lib/aws-kms";
import { RetentionDays } from "aws-cdk-lib/aws-logs";
import { Topic } from "aws-cdk-lib/aws-sns";
import { LogLevel } from "aws-cdk-lib/aws-stepfunctions";
import { describe, expect, it } from "vitest";
import type { RunlogProps } from "../../cdk/props.ts";
import { PROP_KINDS } from "../../cdk/propsShape.ts";
import { PROP_NAMES } from "../../cdk/propsValidation.ts";
import { Runlog } from "../../cdk/runlog.ts";
import { RunlogStack } from "../../cdk/runlogStack.ts";
import { MAX_RETENTION_DAYS } from "../../lib/core/retention.ts";

/**
 * What TypeScript would refuse, and values a template takes but a deploy or a run would not, given
 * from JavaScript or through `as never`: each a RunlogPropsError naming the prop (the field of a
 * nested one) and saying what it got, before anything is made; never a TypeError from deep inside.
 */
const AGENTS = join(import.meta.dirname, "fixtures", "agents.ts");
const ENV = { account: "123456789012", region: "us-east-1" };

const newStack = () => new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "S", { env: ENV });

/** What `new Runlog` threw with these props (made by `make` in the stack), or undefined. */
function thrown(make: (stack: Stack) => Record<string, unknown>): unknown {
  const stack = newStack();
  try {
    new Runlog(stack, "R", { agentsModule: AGENTS, ...make(stack) } as RunlogProps);
  } catch (error) {
    return error;
  }
  return undefined;
}

const refused = (prop: string, got?: string) =>
  expect.objectContaining({
    name: "RunlogPropsError",
    prop,
    message: got === undefined ? expect.stringContaining(prop) : expect.stringContaining(got),
  });

describe("a nested prop's unknown field", () => {
  it.each([
    ["alarms.topc", { alarms: { topc: {} } }, "did you mean topic?"],
    ["concurrency.maxToolCall", { concurrency: { maxToolCall: 4 } }, "did you mean maxToolCalls?"],
    [
      "auth.jwt.tenantclaim",
      { auth: { jwt: { issuer: "https://x", audience: ["a"], tenantclaim: "org" } } },
      "did you mean tenantClaim?",
    ],
    [
      "stateMachineLogs.includeExecData",
      { stateMachineLogs: { includeExecData: true } },
      "includeExecutionData?",
    ],
    ["throttle.rate", { throttle: { rate: 10 } }, "rateLimit?"],
    ["redrive.afterr", { redrive: { after: Duration.minutes(5), afterr: 1 } }, "did you mean after?"],
    ["models.alow", { models: { alow: ["a"] } }, "did you mean allow?"],
    ["bedrock.model", { bedrock: { models: ["amazon.nova-lite-v1:0"], model: "x" } }, "did you mean models?"],
    ["auth.iam", { auth: { jwt: { issuer: "https://x", audience: ["a"] }, iam: true } }, "auth is { jwt }"],
  ])("%s is refused, naming it and the field it likely meant", (prop, props, words) => {
    expect(thrown(() => props)).toEqual(refused(prop, words));
  });

  it("is checked for every object prop the construct reads (each listed with its fields)", () => {
    const objects = Object.entries(PROP_KINDS)
      .filter(([, kind]) => "fields" in kind)
      .map(([prop]) => prop);
    expect(objects.sort()).toEqual(
      [
        "alarms",
        "auth",
        "bedrock",
        "concurrency",
        "models",
        "redrive",
        "stateMachineLogs",
        "throttle",
      ].sort(),
    );
    for (const prop of Object.keys(PROP_KINDS)) expect(PROP_NAMES).toContain(prop);
  });
});

describe("a prop or field of the wrong kind", () => {
  it.each([
    [
      "alarms.topic",
      { alarms: { topic: "arn:aws:sns:us-east-1:123456789012:oncall" } },
      'got the string "arn:aws:sns',
    ],
    ["alarms.runbookBaseUrl", { alarms: { runbookBaseUrl: 5 } }, "got the number 5"],
    ["alarms", { alarms: true }, "or false, got the boolean true"],
    ["eventBus", { eventBus: "my-bus" }, 'got the string "my-bus"'],
    ["table", { table: "MyTable" }, 'got the string "MyTable"'],
    ["eventPublishers[0]", { eventPublishers: ["111111111111"] }, 'got the string "111111111111"'],
    ["eventPublishers", { eventPublishers: "111111111111" }, 'got the string "111111111111"'],
    ["tableRemovalPolicy", { tableRemovalPolicy: "nuke" }, 'got the string "nuke"'],
    ["stateMachineLogs.includeExecutionData", { stateMachineLogs: { includeExecutionData: "yes" } }, '"yes"'],
    ["stateMachineLogs.level", { stateMachineLogs: { level: "LOUD" } }, 'got the string "LOUD"'],
    ["logRetention", { logRetention: 12345 }, "got the number 12345"],
    ["throttle.rateLimit", { throttle: { rateLimit: "10" } }, 'got the string "10"'],
    ["auth.jwt.audience", { auth: { jwt: { issuer: "https://x", audience: "a" } } }, 'got the string "a"'],
    ["auth.jwt", { auth: { jwt: null } }, "got null"],
    [
      "adminPrincipals",
      { adminPrincipals: "arn:aws:iam::1:role/x" },
      'got the string "arn:aws:iam::1:role/x"',
    ],
    ["models.allow", { models: { allow: "openai:*" } }, 'got the string "openai:*"'],
    ["trustedEventSources", { trustedEventSources: "my.app" }, 'got the string "my.app"'],
    ["concurrency", { concurrency: null }, "got null"],
    ["modelKeySecret", { modelKeySecret: "arn:aws:s3:::bucket" }, "secretsmanager"],
    ["modelKeySecret", { modelKeySecret: "my secret" }, 'got the string "my secret"'],
    ["retentionDays", { retentionDays: 1e8 }, `from 1 to ${MAX_RETENTION_DAYS}`],
    ["retentionDays", { retentionDays: MAX_RETENTION_DAYS + 1 }, `from 1 to ${MAX_RETENTION_DAYS}`],
    ["redrive.after", { redrive: { after: Duration.seconds(10) } }, "a minute or more"],
    ["redrive.after", { redrive: {} }, "is required"],
    ["toolGroups.pay", { toolGroups: { pay: null } }, "got null"],
    [
      "sweepEvery",
      { sweepEvery: Duration.minutes(Token.asNumber(Lazy.number({ produce: () => 3 }))) },
      "a token in minutes",
    ],
    ["toolGroups.pay.tools", { toolGroups: { pay: { tools: ["lookup", "lookup"] } } }, '"lookup" twice'],
  ])("%s is refused, naming it and what it got", (prop, props, words) => {
    expect(thrown(() => props)).toEqual(refused(prop, words));
  });

  it("names the prop for a key of another Region", () => {
    const error = thrown((stack) => ({
      encryptionKey: Key.fromKeyArn(
        stack,
        "K",
        "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
      ),
    }));
    expect(error).toEqual(refused("encryptionKey", "eu-west-1"));
    const perKind = thrown((stack) => ({
      encryptionKey: {
        logs: Key.fromKeyArn(
          stack,
          "K",
          "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
        ),
      },
    }));
    expect(perKind).toEqual(refused("encryptionKey.logs", "us-east-1"));
  });

  it("names eventBusName of a RunlogStack that is not a name", () => {
    expect(
      () =>
        new RunlogStack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "S", {
          env: ENV,
          agentsModule: AGENTS,
          eventBusName: 5 as never,
        }),
    ).toThrow(refused("eventBusName", "got the number 5"));
  });
});

describe("functions.<name>.environment", () => {
  it("lets the team point openai: models at another endpoint, organization and project", () => {
    const stack = newStack();
    const runlog = new Runlog(stack, "R", {
      agentsModule: AGENTS,
      functions: {
        callModel: {
          environment: {
            OPENAI_BASE_URL: "https://gw.example.com/v1",
            OPENAI_ORG_ID: "org-1",
            OPENAI_PROJECT_ID: "proj-1",
          },
        },
      },
    });
    const variables = stack.resolve(
      (runlog.functions.callModel.node.defaultChild as unknown as { environment: unknown }).environment,
    ) as { variables: Record<string, string> };
    expect(variables.variables).toMatchObject({
      OPENAI_BASE_URL: "https://gw.example.com/v1",
      OPENAI_ORG_ID: "org-1",
      OPENAI_PROJECT_ID: "proj-1",
    });
  });

  it.each([
    ["OPENAI_API_KEY", "modelKeySecret"],
    ["TABLE_NAME", "runlog's own"],
    ["RUNLOG_DEPLOYMENT", "runlog's own"],
    ["AWS_REGION", "Lambda reserves it"],
    ["NODE_OPTIONS", "Lambda reserves it"],
  ])("refuses %s, saying why", (name, why) => {
    expect(thrown(() => ({ functions: { api: { environment: { [name]: "x" } } } }))).toEqual(
      refused("functions.api.environment", why),
    );
  });

  it("refuses more than Lambda's 4 KB of variables", () => {
    expect(thrown(() => ({ functions: { api: { environment: { BIG: "x".repeat(5_000) } } } }))).toEqual(
      refused("functions.api.environment", "4096"),
    );
  });
});

describe("props of the right kind", () => {
  it("are taken", () => {
    const stack = newStack();
    const runlog = new Runlog(stack, "R", {
      agentsModule: AGENTS,
      alarms: { topic: new Topic(stack, "OnCall"), runbookBaseUrl: "https://runbooks.example.com" },
      tableRemovalPolicy: RemovalPolicy.DESTROY,
      logRetention: RetentionDays.ONE_WEEK,
      stateMachineLogs: { level: LogLevel.ALL, includeExecutionData: false },
      modelKeySecret: "arn:aws:secretsmanager:us-east-1:123456789012:secret:openai-AbCdEf",
      retentionDays: MAX_RETENTION_DAYS,
      redrive: { after: Duration.minutes(10) },
    });
    expect(runlog.alarms.length).toBeGreaterThan(0);
  });

  it("take a bus and a table of the app", () => {
    const stack = newStack();
    const table = new Table(stack, "T", {
      partitionKey: { name: "runId", type: AttributeType.STRING },
      sortKey: { name: "seq", type: AttributeType.NUMBER },
    });
    expect(
      () =>
        new Runlog(stack, "R", {
          agentsModule: AGENTS,
          eventBus: new EventBus(stack, "B") as IEventBus,
          table: table as ITable,
        }),
    ).not.toThrow();
  });
});

describe("trustedEventSources with eventPublishers", () => {
  it("is a synth warning naming the prop: the bus policy has no events:source condition", () => {
    const stack = newStack();
    new Runlog(stack, "R", {
      agentsModule: AGENTS,
      trustedEventSources: ["my.app"],
      eventPublishers: [new AccountPrincipal("111111111111")],
    });
    Annotations.fromStack(stack).hasWarning(
      "/S/R",
      Match.stringLikeRegexp("trustedEventSources: .*no events:source condition"),
    );
  });
});
