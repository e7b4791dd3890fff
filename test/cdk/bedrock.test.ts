import { join } from "node:path";
import { runSimulation } from "@cloud-copilot/iam-simulate";
import { AwsSolutionsChecks } from "cdk-nag";
import { beforeAll, describe, expect, it } from "vitest";
import { RunlogPropsError } from "../../cdk/props.ts";
import type { HandlerName } from "../../cdk/runlogFunction.ts";
import { ACCOUNT } from "../support/iam/awsCalls.ts";
import { functionPolicies, type RolePolicy, type TemplateJson } from "../support/iam/template.ts";
import { HANDLERS, synthesizeConstruct } from "./synth.ts";

/** Issue 25: a deployment's CallModel may stream from the Bedrock models its props name, and nothing else may. */
const AGENTS = join(import.meta.dirname, "fixtures", "agents.ts");
const NAMED = "amazon.nova-lite-v1:0";
const PROFILE = "us.anthropic.claude-3-5-haiku-20241022-v1:0";
const model = (id: string, region = "us-east-1") => `arn:aws:bedrock:${region}::foundation-model/${id}`;
const profile = (id: string) => `arn:aws:bedrock:us-east-1:${ACCOUNT}:inference-profile/${id}`;

let policies: Record<HandlerName, RolePolicy[]>;
beforeAll(() => {
  const s = synthesizeConstruct({ agentsModule: AGENTS, bedrock: { models: [NAMED, PROFILE] } });
  policies = functionPolicies(s.template.toJSON() as TemplateJson, s.functionIds);
});

/** IAM's own decision (@cloud-copilot/iam-simulate) on one request by a function's role. */
async function decision(fn: HandlerName, action: string, resource: string): Promise<string> {
  const result = await runSimulation(
    {
      identityPolicies: policies[fn].map((policy) => ({ name: policy.name, policy: policy.document })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      request: {
        action,
        principal: `arn:aws:iam::${ACCOUNT}:role/${fn}`,
        resource: { accountId: ACCOUNT, resource },
        contextVariables: {},
      },
    },
    {},
  );
  if (result.resultType === "error") throw new Error(JSON.stringify(result.errors));
  return result.overallResult;
}

const STREAM = "bedrock:InvokeModelWithResponseStream";

describe("bedrock.models: least privilege, as IAM decides it", () => {
  it.each([
    ["the named model", model(NAMED)],
    ["the named inference profile", profile(PROFILE)],
    [
      "the model the profile routes to, in another Region of its geography",
      model("anthropic.claude-3-5-haiku-20241022-v1:0", "us-west-2"),
    ],
  ])("CallModel may stream from %s", async (_what, resource) => {
    expect(await decision("callModel", STREAM, resource)).toBe("Allowed");
  });

  it.each([
    ["a model not named", STREAM, model("amazon.nova-pro-v1:0")],
    ["the named model in another Region", STREAM, model(NAMED, "eu-west-1")],
    ["a profile not named", STREAM, profile("us.amazon.nova-pro-v1:0")],
    ["the named model without streaming (InvokeModel)", "bedrock:InvokeModel", model(NAMED)],
  ])("CallModel may not call %s", async (_what, action, resource) => {
    expect(await decision("callModel", action, resource)).not.toBe("Allowed");
  });

  it("no other function may stream from the named model", async () => {
    for (const fn of HANDLERS.filter((h) => h !== "callModel")) {
      expect(await decision(fn, STREAM, model(NAMED)), fn).not.toBe("Allowed");
    }
  });

  it("no bedrock action is granted on *", () => {
    const statements = Object.values(policies)
      .flat()
      .flatMap((policy) => policy.document.Statement);
    const bedrock = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith("bedrock:")));
    expect(bedrock.length).toBeGreaterThan(0);
    expect(bedrock.flatMap((s) => [s.Resource].flat())).not.toContain("*");
  });

  it("passes cdk-nag in the user's stack", () => {
    const s = synthesizeConstruct({ agentsModule: AGENTS, bedrock: { models: [NAMED, PROFILE] } });
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(s.stack);
    const errors = report.violations.filter((v) => v.severity === "error");
    expect(
      errors.map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(", ")}`),
    ).toEqual([]);
  });
});

describe("bedrock.models: checked at synth, naming the prop", () => {
  it.each([
    [{ models: [] }, "bedrock.models"],
    [{ models: ["*"] }, "bedrock.models"],
    [{ models: ["anthropic.*"] }, "bedrock.models"],
    [{ models: [""] }, "bedrock.models"],
    [{ models: ["not a model"] }, "bedrock.models"],
    [{ models: "amazon.nova-lite-v1:0" }, "bedrock.models"],
  ])("%j", (bedrock, prop) => {
    let error: unknown;
    try {
      synthesizeConstruct({ agentsModule: AGENTS, bedrock: bedrock as never });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RunlogPropsError);
    expect(error).toMatchObject({ prop, field: prop });
  });
});
