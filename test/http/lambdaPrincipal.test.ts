import type { Context } from "hono";
import { describe, expect, it } from "vitest";
import { lambdaPrincipal, type PrincipalPolicy } from "../../lib/http/lambda.ts";

const ARN = "arn:aws:sts::123456789012:assumed-role/Dev/ana";
const OPS = "arn:aws:sts::123456789012:assumed-role/Ops/bo";

/** The request context API Gateway hands the function, as hono's Lambda adapter puts it in `c.env`. */
const asked = (requestContext: unknown) => ({ env: { requestContext } }) as unknown as Context;
const v1 = (userArn: string | null) => asked({ identity: { userArn } });
const v2 = (userArn: string | null) => asked({ authorizer: { iam: { userArn } } });
const jwt = (claims: Record<string, unknown>, scopes: string[] | null = null) =>
  asked({ authorizer: { jwt: { claims, scopes } } });

describe("lambdaPrincipal with IAM (the default)", () => {
  const principal = lambdaPrincipal({ adminPrincipals: ["arn:aws:sts::123456789012:assumed-role/Ops/*"] });

  it("is the principal ARN of a v1 or a v2 event", () => {
    expect(principal(v1(ARN))).toEqual({ id: ARN });
    expect(principal(v2(ARN))).toEqual({ id: ARN });
  });

  it("is an admin only when the ARN matches an admin pattern, as a whole", () => {
    expect(principal(v2(OPS))).toEqual({ id: OPS, admin: true });
    // A lookalike: the pattern is anchored at both ends and `.` is no wildcard.
    expect(principal(v2("arn:aws:sts::123456789012:assumed-role/OpsX/bo"))).toEqual({
      id: "arn:aws:sts::123456789012:assumed-role/OpsX/bo",
    });
    expect(principal(v2(`x${OPS}`))).toEqual({ id: `x${OPS}` });
    expect(
      lambdaPrincipal({ adminPrincipals: ["arn:aws:iam::1.3:user/a"] })(v2("arn:aws:iam::123:user/a")),
    ).toEqual({
      id: "arn:aws:iam::123:user/a",
    });
    expect(lambdaPrincipal()(v2(OPS))).toEqual({ id: OPS });
  });

  it("is nobody without an ARN, and never believes a JWT's claims", () => {
    expect(principal(v2(null))).toBeUndefined();
    expect(principal(v1(""))).toBeUndefined();
    expect(principal(asked(undefined))).toBeUndefined();
    expect(principal(jwt({ sub: OPS, scope: "runlog/admin" }))).toBeUndefined();
  });
});

describe("lambdaPrincipal with a JWT authorizer", () => {
  const policy: PrincipalPolicy = { auth: "jwt", tenantClaim: "org", adminScope: "runlog/admin" };
  const principal = lambdaPrincipal(policy);

  it("is the token's subject, with its tenant from the configured claim", () => {
    expect(principal(jwt({ sub: "u-1", org: "acme" }))).toEqual({ id: "u-1", tenant: "acme" });
    expect(lambdaPrincipal({ auth: "jwt" })(jwt({ sub: "u-1", org: "acme" }))).toEqual({ id: "u-1" });
    // Without the claim the caller has its own runs only, never someone else's tenant.
    expect(principal(jwt({ sub: "u-1" }))).toEqual({ id: "u-1" });
    expect(principal(jwt({ sub: "u-1", org: "" }))).toEqual({ id: "u-1" });
    expect(principal(jwt({ sub: "u-1", org: 42 }))).toEqual({ id: "u-1" });
  });

  it("is an admin when the scope claim or the authorizer's scopes hold the admin scope, as a whole word", () => {
    expect(principal(jwt({ sub: "u-1", scope: "runlog/read runlog/admin" }))).toEqual({
      id: "u-1",
      admin: true,
    });
    // API Gateway shows a list claim as "[a b]".
    expect(principal(jwt({ sub: "u-1", scope: "[runlog/admin runlog/read]" }))).toEqual({
      id: "u-1",
      admin: true,
    });
    expect(principal(jwt({ sub: "u-1", scope: ["runlog/admin"] }))).toEqual({ id: "u-1", admin: true });
    expect(principal(jwt({ sub: "u-1" }, ["runlog/admin"]))).toEqual({ id: "u-1", admin: true });
    expect(principal(jwt({ sub: "u-1", scope: "runlog/administrator runlog/admin2" }))).toEqual({
      id: "u-1",
    });
    // A claim that merely names the scope is not the scope claim.
    expect(principal(jwt({ sub: "u-1", role: "runlog/admin" }))).toEqual({ id: "u-1" });
    expect(lambdaPrincipal({ auth: "jwt" })(jwt({ sub: "u-1", scope: "runlog/admin" }))).toEqual({
      id: "u-1",
    });
  });

  it("is nobody without a subject, and never believes an IAM ARN", () => {
    expect(principal(jwt({ org: "acme" }))).toBeUndefined();
    expect(principal(jwt({ sub: "" }))).toBeUndefined();
    expect(principal(jwt({ sub: 7 }))).toBeUndefined();
    expect(principal(v2(ARN))).toBeUndefined();
    expect(principal(v1(ARN))).toBeUndefined();
  });
});
