import { join } from "node:path";
import { Duration } from "aws-cdk-lib";
import { describe, expect, it } from "vitest";
import type { RunlogProps } from "../../cdk/props.ts";
import { MAX_RUNNING_PER_OWNER } from "../../lib/core/principal.ts";
import { MAX_RETENTION_DAYS } from "../../lib/core/retention.ts";
import { NAMES } from "../../lib/runtime/config.ts";
import { type HandlerConfig, readConfig } from "../../lib/runtime/readConfig.ts";
import { type Synthesized, synthesizeConstruct } from "./synth.ts";

/**
 * What the construct accepts, its functions accept: every function's environment, as synthesized
 * from props at the edges of what the construct allows, is read by the handlers' own parser
 * (readConfig for "handlers", what functions/deps.ts runs at a cold start) without a problem, and
 * reads back as the props said. A prop the construct let through and a handler refused would fail
 * every cold start of a deployed stack, long after `cdk synth` said nothing.
 */
const AGENTS = join(import.meta.dirname, "fixtures", "agents.ts");

/** What a deployed function sees where the template holds a reference (a name, an ARN, a URL). */
const DEPLOYED: Partial<Record<string, string>> = {
  [NAMES.tableName]: "UserStack-AgentsRuns-1A2B3C",
  [NAMES.stateMachineArn]: "arn:aws:states:us-east-1:123456789012:stateMachine:AgentsRun",
  [NAMES.modelKeySecretArn]: "arn:aws:secretsmanager:us-east-1:123456789012:secret:model-key-AbCdEf",
  [NAMES.eventBusName]: "UserStack.Agents-Events",
  [NAMES.apiUrl]: "https://abc123.execute-api.us-east-1.amazonaws.com/",
  [NAMES.deadLettersUrl]: "https://sqs.us-east-1.amazonaws.com/123456789012/agents-dead-letters",
  [NAMES.redriveTargets]:
    "arn:aws:lambda:us-east-1:123456789012:function:StartRun,arn:aws:lambda:us-east-1:123456789012:function:Resume",
};

type LambdaProps = { Environment?: { Variables?: Record<string, unknown> } };

/** Each function's environment as deployed: its references given the values they resolve to. */
function deployedEnvironments(s: Synthesized): Map<string, Record<string, string>> {
  const environments = new Map<string, Record<string, string>>();
  for (const [id, resource] of Object.entries(s.template.findResources("AWS::Lambda::Function"))) {
    const variables = (resource.Properties as LambdaProps).Environment?.Variables ?? {};
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(variables)) {
      if (typeof value === "string") env[name] = value;
      else {
        const deployed = DEPLOYED[name];
        if (deployed === undefined)
          throw new Error(`${id}: ${name} is a reference this test has no value for`);
        env[name] = deployed;
      }
    }
    environments.set(id, env);
  }
  return environments;
}

/** Every function of a stack read as its handler reads it; the values of the first, by logical id. */
function readAll(s: Synthesized) {
  const environments = deployedEnvironments(s);
  expect(environments.size).toBeGreaterThanOrEqual(12);
  const configs = new Map<string, HandlerConfig>();
  for (const [id, env] of environments) {
    let config: HandlerConfig | undefined;
    expect(() => {
      config = readConfig(env, { for: "handlers" });
    }, id).not.toThrow();
    configs.set(id, config!);
  }
  return configs;
}

const atTheEdges: RunlogProps = {
  agentsModule: AGENTS,
  retentionDays: MAX_RETENTION_DAYS,
  statusShards: 32,
  executionTimeout: Duration.days(365),
  maxRunningPerOwner: MAX_RUNNING_PER_OWNER,
  adminPrincipals: [
    "arn:aws:iam::123456789012:role/ops-*",
    " arn:aws:sts::123456789012:assumed-role/oncall/* ",
  ],
  models: { allow: ["openai:gpt-*", "bedrock:anthropic.*", "scripted:*"] },
  trustedEventSources: ["com.example.orders", "com.example.billing"],
  redrive: { after: Duration.minutes(5) },
  functions: {
    callModel: {
      timeout: Duration.minutes(15),
      environment: { OPENAI_BASE_URL: "https://models.example/v1" },
    },
    runTool: { timeout: Duration.seconds(30) },
  },
};

describe("every function's environment reads as its handler reads it", () => {
  it("with IAM callers, every list, cap and limit at the edge of what the construct allows", () => {
    const s = synthesizeConstruct(atTheEdges);
    const configs = readAll(s);
    const api = configs.get(s.functionIds.api)!;
    expect(api.adminPrincipals).toEqual([
      "arn:aws:iam::123456789012:role/ops-*",
      "arn:aws:sts::123456789012:assumed-role/oncall/*",
    ]);
    expect(api.modelsAllow).toEqual(["openai:gpt-*", "bedrock:anthropic.*", "scripted:*"]);
    expect(api.maxRunningPerOwner).toBe(MAX_RUNNING_PER_OWNER);
    expect(configs.get(s.functionIds.startRun)!.trustedEventSources).toEqual([
      "com.example.orders",
      "com.example.billing",
    ]);
    const callModel = configs.get(s.functionIds.callModel)!;
    expect(callModel.retentionDays).toBe(MAX_RETENTION_DAYS);
    expect(callModel.statusShards).toBe(32);
    expect(callModel.stepTimeoutSeconds).toBe(900);
    expect(callModel.openaiBaseUrl).toBe("https://models.example/v1");
    expect(configs.get(s.functionIds.runTool)!.stepTimeoutSeconds).toBe(30);
    // The lease outlasts the longest execution the construct allows.
    expect(callModel.leaseMs).toBeGreaterThan(365 * 24 * 3_600_000);
  });

  it("with JWT callers, their tenant claim and admin scope", () => {
    const s = synthesizeConstruct({
      agentsModule: AGENTS,
      auth: {
        jwt: {
          issuer: "https://auth.example.com/",
          audience: ["agents"],
          tenantClaim: "custom:tenant_id",
          adminScope: "runlog/admin",
        },
      },
      retentionDays: 1,
      statusShards: 1,
    });
    const api = readAll(s).get(s.functionIds.api)!;
    expect(api).toMatchObject({
      auth: "jwt",
      tenantClaim: "custom:tenant_id",
      adminScope: "runlog/admin",
      retentionDays: 1,
      statusShards: 1,
    });
  });

  it("with the defaults: the required variables there, nothing else needed", () => {
    const s = synthesizeConstruct({ agentsModule: AGENTS });
    for (const config of readAll(s).values()) {
      expect(config.tableName).toBe(DEPLOYED[NAMES.tableName]);
      expect(config.leaseMs).toBeGreaterThan(0);
    }
  });
});
