import { randomUUID } from "node:crypto";
import { ACCOUNT } from "./template.ts";

/** The IAM user a test request is signed by (API Gateway puts it in the event's authorizer). */
export const CALLER_ARN = `arn:aws:iam::${ACCOUNT}:user/alice`;

/**
 * An API Gateway HTTP API (payload 2.0) event for a request to the runlog API, as the IAM-
 * authorized `$default` stage delivers it to the `api` function.
 */
export function httpApiEvent(method: string, path: string, body?: unknown): Record<string, unknown> {
  const now = Date.now();
  const requestId = randomUUID();
  return {
    version: "2.0",
    routeKey: path === "/runs" ? "ANY /runs" : "ANY /runs/{proxy+}",
    rawPath: path,
    rawQueryString: "",
    headers: {
      accept: "application/json",
      "content-type": "application/json",
      host: "abc123.execute-api.us-east-1.amazonaws.com",
      "user-agent": "runlog-test",
    },
    requestContext: {
      accountId: ACCOUNT,
      apiId: "abc123",
      authorizer: {
        iam: {
          accessKey: "AKIAEXAMPLE",
          accountId: ACCOUNT,
          callerId: "AIDAEXAMPLE",
          principalOrgId: null,
          userArn: CALLER_ARN,
          userId: "AIDAEXAMPLE",
        },
      },
      domainName: "abc123.execute-api.us-east-1.amazonaws.com",
      domainPrefix: "abc123",
      http: { method, path, protocol: "HTTP/1.1", sourceIp: "127.0.0.1", userAgent: "runlog-test" },
      requestId,
      routeKey: path === "/runs" ? "ANY /runs" : "ANY /runs/{proxy+}",
      stage: "$default",
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    ...(path === "/runs" ? {} : { pathParameters: { proxy: path.slice("/runs/".length) } }),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    isBase64Encoded: false,
  };
}

/** An API Gateway proxy answer: its status and its JSON body. */
export function answerOf(result: unknown): { status: number; body: Record<string, unknown> } {
  const { statusCode, body } = result as { statusCode: number; body: string };
  return { status: statusCode, body: JSON.parse(body) as Record<string, unknown> };
}
