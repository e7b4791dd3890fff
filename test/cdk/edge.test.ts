import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_API_RESERVED_CONCURRENCY, DEFAULT_THROTTLE } from "../../cdk/edgeProps.ts";
import { OWNER_INDEX } from "../../cdk/grants.ts";
import type { RunlogProps } from "../../cdk/props.ts";
import type { HandlerName } from "../../cdk/runlogFunction.ts";
import { NAMES } from "../../lib/runtime/config.ts";
import { HANDLERS, permissionsOf, type Synthesized, synthesizeConstruct } from "./synth.ts";

const AGENTS = join(import.meta.dirname, "fixtures", "agents.ts");
const ISSUER = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_example";

interface FunctionProps {
  ReservedConcurrentExecutions?: number;
  Environment: { Variables: Record<string, unknown> };
}
const functionProps = (s: Synthesized, handler: HandlerName) =>
  s.template.findResources("AWS::Lambda::Function")[s.functionIds[handler]]!.Properties as FunctionProps;
const variables = (s: Synthesized, handler: HandlerName) => functionProps(s, handler).Environment.Variables;
const routes = (s: Synthesized) =>
  Object.values(s.template.findResources("AWS::ApiGatewayV2::Route")).map(
    (route) => route.Properties as { RouteKey: string; AuthorizationType: string; AuthorizerId?: unknown },
  );
const stage = (s: Synthesized) =>
  Object.values(s.template.findResources("AWS::ApiGatewayV2::Stage"))[0]!.Properties as {
    DefaultRouteSettings?: { ThrottlingRateLimit?: number; ThrottlingBurstLimit?: number };
  };
const propsError = (props: Partial<RunlogProps>) => {
  try {
    synthesizeConstruct({ agentsModule: AGENTS, ...props });
  } catch (error) {
    return error;
  }
  return undefined;
};

describe("the HTTP API's edge", () => {
  const iam = synthesizeConstruct({ agentsModule: AGENTS });
  const jwt = synthesizeConstruct({
    agentsModule: AGENTS,
    auth: {
      jwt: {
        issuer: ISSUER,
        audience: ["client-1", "client-2"],
        tenantClaim: "org",
        adminScope: "runlog/admin",
      },
    },
    throttle: { rateLimit: 20, burstLimit: 40 },
    apiReservedConcurrency: 25,
    maxRunningPerOwner: 5,
    models: { allow: ["openai:gpt-4.1*", "scripted:demo"] },
    trustedEventSources: ["acme.gateway"],
  });

  it("authorizes every route with IAM by default and with the JWT authorizer when asked, none left open", () => {
    expect(routes(iam).length).toBeGreaterThan(0);
    for (const route of routes(iam)) expect(route.AuthorizationType, route.RouteKey).toBe("AWS_IAM");
    const [authorizer, ...others] = Object.entries(
      jwt.template.findResources("AWS::ApiGatewayV2::Authorizer"),
    );
    expect(others).toEqual([]);
    expect(authorizer![1].Properties).toMatchObject({
      AuthorizerType: "JWT",
      IdentitySource: ["$request.header.Authorization"],
      JwtConfiguration: { Issuer: ISSUER, Audience: ["client-1", "client-2"] },
    });
    expect(routes(jwt).length).toBe(routes(iam).length);
    for (const route of routes(jwt)) {
      expect(route.AuthorizationType, route.RouteKey).toBe("JWT");
      expect(route.AuthorizerId, route.RouteKey).toEqual({ Ref: authorizer![0] });
    }
    expect(Object.keys(iam.template.findResources("AWS::ApiGatewayV2::Authorizer"))).toEqual([]);
  });

  it("throttles the default stage: the defaults, or the props", () => {
    expect(stage(iam).DefaultRouteSettings).toEqual({
      ThrottlingRateLimit: DEFAULT_THROTTLE.rateLimit,
      ThrottlingBurstLimit: DEFAULT_THROTTLE.burstLimit,
    });
    expect(stage(jwt).DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 });
  });

  it("reserves the Api function's concurrency: the default, the prop, or none with false", () => {
    expect(functionProps(iam, "api").ReservedConcurrentExecutions).toBe(DEFAULT_API_RESERVED_CONCURRENCY);
    expect(functionProps(jwt, "api").ReservedConcurrentExecutions).toBe(25);
    const none = synthesizeConstruct({ agentsModule: AGENTS, apiReservedConcurrency: false });
    expect(functionProps(none, "api").ReservedConcurrentExecutions).toBeUndefined();
  });

  it("tells the Api how callers are known, the cap and the models; startRun and resume the models; startRun, steerRun and resume the trusted sources", () => {
    expect(variables(jwt, "api")).toMatchObject({
      [NAMES.auth]: "jwt",
      [NAMES.tenantClaim]: "org",
      [NAMES.adminScope]: "runlog/admin",
      RUNLOG_MAX_RUNNING_PER_OWNER: "5",
      [NAMES.modelsAllow]: "openai:gpt-4.1*,scripted:demo",
    });
    expect(variables(jwt, "startRun")).toMatchObject({
      [NAMES.modelsAllow]: "openai:gpt-4.1*,scripted:demo",
      [NAMES.trustedEventSources]: "acme.gateway",
    });
    expect(variables(jwt, "resume")[NAMES.modelsAllow]).toBe("openai:gpt-4.1*,scripted:demo");
    // A steering event and a ResumeRun act as the owner a trusted source names, as a StartRun does.
    expect(variables(jwt, "steerRun")[NAMES.trustedEventSources]).toBe("acme.gateway");
    expect(variables(jwt, "resume")[NAMES.trustedEventSources]).toBe("acme.gateway");
    // The functions that take no event from the bus believe no source.
    for (const handler of HANDLERS.filter((h) => !["startRun", "steerRun", "resume"].includes(h))) {
      expect(variables(jwt, handler)[NAMES.trustedEventSources], handler).toBeUndefined();
    }
    // The steps are never refused a model mid-run: a run started before the list changed goes on.
    for (const handler of HANDLERS.filter((h) => !["api", "startRun", "resume"].includes(h))) {
      expect(variables(jwt, handler)[NAMES.modelsAllow], handler).toBeUndefined();
    }
    for (const name of [
      NAMES.auth,
      NAMES.adminPrincipals,
      NAMES.modelsAllow,
      "RUNLOG_MAX_RUNNING_PER_OWNER",
    ]) {
      expect(variables(iam, "api")[name], name).toBeUndefined();
    }
    const admins = synthesizeConstruct({
      agentsModule: AGENTS,
      adminPrincipals: [
        "arn:aws:sts::123456789012:assumed-role/Ops/*",
        "arn:aws:iam::123456789012:user/root-ish",
      ],
    });
    expect(variables(admins, "api")[NAMES.adminPrincipals]).toBe(
      "arn:aws:sts::123456789012:assumed-role/Ops/*,arn:aws:iam::123456789012:user/root-ish",
    );
  });

  it("lets the Api query the owner index, and no other function", () => {
    const tableId = iam.logicalId(iam.runlog.table.node.defaultChild as never);
    const ownerIndex = { "Fn::Join": ["", [{ "Fn::GetAtt": [tableId, "Arn"] }, `/index/${OWNER_INDEX}`]] };
    const roleOf = (handler: HandlerName) =>
      iam.logicalId(iam.runlog.functions[handler].role!.node.defaultChild as never);
    expect(permissionsOf(iam.template, roleOf("api")).resources).toContainEqual(ownerIndex);
    for (const handler of HANDLERS.filter((h) => h !== "api")) {
      expect(permissionsOf(iam.template, roleOf(handler)).resources, handler).not.toContainEqual(ownerIndex);
    }
  });

  it("acts on StartRun, ResumeRun and steering events from runlog and the trusted sources only", () => {
    const rules = Object.values(jwt.template.findResources("AWS::Events::Rule")).map(
      (rule) => rule.Properties.EventPattern as { source?: string[]; "detail-type"?: string[] } | undefined,
    );
    expect(rules).toContainEqual({ source: ["runlog", "acme.gateway"], "detail-type": ["runlog.StartRun"] });
    expect(rules).toContainEqual({ source: ["runlog", "acme.gateway"], "detail-type": ["runlog.ResumeRun"] });
    // Without trusted sources, each rule takes the source runlog alone.
    const plain = Object.values(iam.template.findResources("AWS::Events::Rule"))
      .map((rule) => rule.Properties.EventPattern as { source?: string[] } | undefined)
      .filter((pattern) => pattern?.source !== undefined && !pattern.source.includes("aws.states"));
    expect(plain.map((pattern) => pattern?.source)).toEqual([["runlog"], ["runlog"], ["runlog"]]);
    expect(rules).toContainEqual({
      source: ["runlog", "acme.gateway"],
      "detail-type": ["runlog.SendMessage", "runlog.Decide", "runlog.CancelRun"],
    });
  });
});

describe("the edge props, refused with the prop named", () => {
  it.each<[string, Partial<RunlogProps>]>([
    ["auth.jwt", { auth: {} as never }],
    ["auth.jwt.issuer", { auth: { jwt: { issuer: "http://insecure.example", audience: ["a"] } } }],
    ["auth.jwt.audience", { auth: { jwt: { issuer: ISSUER, audience: [] } } }],
    [
      "auth.jwt.tenantClaim",
      { auth: { jwt: { issuer: ISSUER, audience: ["a"], tenantClaim: "has space" } } },
    ],
    ["adminPrincipals", { adminPrincipals: [] }],
    ["adminPrincipals", { adminPrincipals: ["arn:a,arn:b"] }],
    ["adminPrincipals", { auth: { jwt: { issuer: ISSUER, audience: ["a"] } }, adminPrincipals: ["arn:*"] }],
    ["maxRunningPerOwner", { maxRunningPerOwner: 0 }],
    ["maxRunningPerOwner", { maxRunningPerOwner: 1.5 }],
    // Over what the deployed functions' configuration takes: every invocation would fail.
    ["maxRunningPerOwner", { maxRunningPerOwner: 1001 }],
    ["models.allow", { models: { allow: [] } }],
    ["models.allow", { models: { allow: [""] } }],
    ["trustedEventSources", { trustedEventSources: [] }],
    // Every sender on the bus writes "runlog": believing its detail.owner lets any of them act as anyone.
    ["trustedEventSources", { trustedEventSources: ["acme.gateway", "runlog"] }],
    ["throttle.rateLimit", { throttle: { rateLimit: 0 } }],
    ["throttle.burstLimit", { throttle: { burstLimit: 2.5 } }],
    ["apiReservedConcurrency", { apiReservedConcurrency: 0 }],
    ["apiReservedConcurrency", { apiReservedConcurrency: -3 }],
  ])("%s: %j", (prop, props) => {
    expect(propsError(props)).toMatchObject({ name: "RunlogPropsError", prop, field: prop });
  });
});
