import type { Context } from "hono";
import { handle } from "hono/aws-lambda";
import type { Runlog } from "../api/runlog.ts";
import { type AppOptions, createApp } from "./app.ts";

interface RequestContext {
  identity?: { userArn?: string | null } | null;
  authorizer?: { iam?: { userArn?: string | null } | null } | null;
}

const nonEmpty = (value: string | null | undefined) => (value ? value : undefined);

/**
 * The IAM principal API Gateway authenticated: `identity.userArn` in a REST
 * (v1) event, `authorizer.iam.userArn` in an HTTP API (v2) event.
 */
export function lambdaCaller(c: Context): string | undefined {
  const context = (c.env as { requestContext?: RequestContext } | undefined)?.requestContext;
  return nonEmpty(context?.identity?.userArn) ?? nonEmpty(context?.authorizer?.iam?.userArn);
}

/** A Lambda handler for API Gateway (v1 or v2) or a function URL, serving createApp with the caller from IAM. */
export function apiHandler(runlog: Runlog, options: AppOptions = {}) {
  return handle(createApp(runlog, { caller: lambdaCaller, ...options }));
}
