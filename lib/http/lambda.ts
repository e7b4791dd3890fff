import type { Context } from "hono";
import { handle } from "hono/aws-lambda";
import type { Runlog } from "../api/runlog.ts";
import { matchesAny } from "../core/patterns.ts";
import type { Principal, PrincipalPolicy } from "../core/principal.ts";
import { jsonBytes } from "../core/utf8.ts";
import { type AppOptions, createApp } from "./app.ts";
import { LAMBDA_RESPONSE_MAX_BYTES } from "./limits.ts";

/** What of a v1 or v2 API Gateway request context says who the caller is. */
interface RequestContext {
  identity?: { userArn?: string | null } | null;
  authorizer?: {
    iam?: { userArn?: string | null } | null;
    jwt?: { claims?: Record<string, unknown> | null; scopes?: readonly string[] | null } | null;
  } | null;
}

export type { PrincipalPolicy } from "../core/principal.ts";

const nonEmpty = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

/**
 * The scopes a token grants: its `scope` claim (space-separated, as OAuth writes it; API Gateway
 * shows a list claim as `[a b]`) and what the authorizer lists in `scopes`.
 */
function scopesOf(jwt: NonNullable<NonNullable<RequestContext["authorizer"]>["jwt"]>): string[] {
  const claim = jwt.claims?.scope;
  const words = Array.isArray(claim)
    ? claim.filter((item): item is string => typeof item === "string")
    : typeof claim === "string"
      ? claim.replace(/^\[|\]$/g, "").split(/\s+/)
      : [];
  return [...words, ...(jwt.scopes ?? [])].filter((scope) => scope !== "");
}

function jwtPrincipal(context: RequestContext | undefined, policy: PrincipalPolicy): Principal | undefined {
  const jwt = context?.authorizer?.jwt;
  const id = nonEmpty(jwt?.claims?.sub);
  if (jwt == null || id === undefined) return undefined;
  const tenant = policy.tenantClaim === undefined ? undefined : nonEmpty(jwt.claims?.[policy.tenantClaim]);
  const admin = policy.adminScope !== undefined && scopesOf(jwt).includes(policy.adminScope);
  return { id, ...(tenant === undefined ? {} : { tenant }), ...(admin ? { admin } : {}) };
}

function iamPrincipal(context: RequestContext | undefined, policy: PrincipalPolicy): Principal | undefined {
  const arn = nonEmpty(context?.identity?.userArn) ?? nonEmpty(context?.authorizer?.iam?.userArn);
  if (arn === undefined) return undefined;
  return matchesAny(arn, policy.adminPrincipals ?? []) ? { id: arn, admin: true } : { id: arn };
}

/**
 * How the app learns the caller API Gateway authenticated, under `policy`: with IAM the principal
 * ARN (`identity.userArn` in a REST (v1) event, `authorizer.iam.userArn` in an HTTP API (v2)
 * one), an admin when it matches `adminPrincipals`; with a JWT authorizer (v2) the `sub` claim,
 * the tenant from `tenantClaim`, an admin when its scopes hold `adminScope`. Undefined (a 401)
 * when the event carries no such caller: a JWT is never believed under `iam`, nor an ARN under `jwt`.
 */
export function lambdaPrincipal(policy: PrincipalPolicy = {}): (c: Context) => Principal | undefined {
  const read = policy.auth === "jwt" ? jwtPrincipal : iamPrincipal;
  return (c) => read((c.env as { requestContext?: RequestContext } | undefined)?.requestContext, policy);
}

/** What a v1 or v2 API Gateway event says was asked, for an error message. */
interface AskedFor {
  httpMethod?: string;
  path?: string;
  rawPath?: string;
  requestContext?: { http?: { method?: string } };
}

const route = (event: AskedFor) =>
  `${event.requestContext?.http?.method ?? event.httpMethod ?? "?"} ${event.rawPath ?? event.path ?? "?"}`;

/**
 * The answer itself while Lambda can return it, else a 500 that names the route and the size.
 * Lambda fails an invocation whose serialized response is over LAMBDA_RESPONSE_MAX_BYTES, and API
 * Gateway then answers a bare 502 with nothing said; this says what happened instead. Every route
 * is bounded far below the limit (docs/reference/http-api.md, "Reading a log over HTTP"): this is the guard for a bug.
 */
export function withinLambdaLimit<R extends { statusCode: number; body: string; isBase64Encoded: boolean }>(
  result: R,
  event: AskedFor,
): R {
  const bytes = jsonBytes(result);
  if (bytes <= LAMBDA_RESPONSE_MAX_BYTES) return result;
  const message =
    `${route(event)}: the response is ${bytes} bytes, over the ${LAMBDA_RESPONSE_MAX_BYTES} ` +
    "bytes Lambda can return";
  process.stderr.write(`runlog http: ${message}\n`);
  const type = "application/json";
  const { cookies: _, ...rest } = result as R & { cookies?: string[] };
  return {
    ...rest,
    statusCode: 500,
    body: JSON.stringify({ error: { code: "response_too_large", message } }),
    isBase64Encoded: false,
    ...("multiValueHeaders" in result ? { multiValueHeaders: { "content-type": [type] } } : {}),
    ...("headers" in result ? { headers: { "content-type": type } } : {}),
  } as R;
}

/** A Lambda handler for API Gateway (v1 or v2) or a function URL, serving createApp with the principal from IAM (or `options.principal`, e.g. a lambdaPrincipal with a JWT policy). */
export function apiHandler(runlog: Runlog, options: AppOptions = {}) {
  const handler = handle(createApp(runlog, { principal: lambdaPrincipal(), ...options }));
  return async (...args: Parameters<typeof handler>) =>
    withinLambdaLimit(await handler(...args), args[0] as AskedFor);
}
