import type { Context } from "hono";
import { handle } from "hono/aws-lambda";
import type { Runlog } from "../api/runlog.ts";
import type { Principal } from "../core/principal.ts";
import { type AppOptions, createApp } from "./app.ts";
import { LAMBDA_RESPONSE_MAX_BYTES } from "./limits.ts";

interface RequestContext {
  identity?: { userArn?: string | null } | null;
  authorizer?: { iam?: { userArn?: string | null } | null } | null;
}

const nonEmpty = (value: string | null | undefined) => (value ? value : undefined);

/**
 * The IAM principal API Gateway authenticated: `identity.userArn` in a REST
 * (v1) event, `authorizer.iam.userArn` in an HTTP API (v2) event.
 */
export function lambdaPrincipal(c: Context): Principal | undefined {
  const context = (c.env as { requestContext?: RequestContext } | undefined)?.requestContext;
  const arn = nonEmpty(context?.identity?.userArn) ?? nonEmpty(context?.authorizer?.iam?.userArn);
  return arn === undefined ? undefined : { id: arn };
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
  const bytes = Buffer.byteLength(JSON.stringify(result), "utf8");
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

/** A Lambda handler for API Gateway (v1 or v2) or a function URL, serving createApp with the principal from IAM. */
export function apiHandler(runlog: Runlog, options: AppOptions = {}) {
  const handler = handle(createApp(runlog, { principal: lambdaPrincipal, ...options }));
  return async (...args: Parameters<typeof handler>) =>
    withinLambdaLimit(await handler(...args), args[0] as AskedFor);
}
