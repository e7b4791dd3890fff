import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiHandler } from "../../lib/http/lambda.ts";
import { script } from "../support/cli.ts";
import { call, DONE, EMAIL, openApp, settled } from "./support.ts";

/** apiHandler over a real Runlog, fed the events API Gateway sends; the IAM caller is recorded as `by`. */
let t: Awaited<ReturnType<typeof openApp>>;
let handler: ReturnType<typeof apiHandler>;
beforeAll(async () => {
  t = await openApp("http-lambda");
  handler = apiHandler(t.local.runlog, { allowScriptFiles: true });
});
afterAll(() => t.close());

const ARN = "arn:aws:iam::123456789012:user/ana";

/** An HTTP API (payload v2) event as API Gateway sends it with IAM authorization. */
function v2(method: string, path: string, body?: unknown, userArn = ARN) {
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath: path,
    rawQueryString: "",
    headers: { host: "abc.execute-api.eu-west-1.amazonaws.com", "content-type": "application/json" },
    body: body === undefined ? null : JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: {
      accountId: "123456789012",
      apiId: "abc",
      authentication: null,
      authorizer: {
        iam: {
          accessKey: "AKIA",
          accountId: "123456789012",
          callerId: "AIDA",
          cognitoIdentity: null,
          principalOrgId: null,
          userArn,
          userId: "AIDA",
        },
      },
      domainName: "abc.execute-api.eu-west-1.amazonaws.com",
      domainPrefix: "abc",
      http: { method, path, protocol: "HTTP/1.1", sourceIp: "203.0.113.1", userAgent: "test" },
      requestId: "r1",
      routeKey: "$default",
      stage: "$default",
      time: "30/Nov/2026:00:00:00 +0000",
      timeEpoch: 0,
    },
  };
}

/** A REST API (payload v1) event, where IAM puts the caller in `identity.userArn`. */
function v1(method: string, path: string, body?: unknown, userArn: string | null = ARN) {
  return {
    version: "1.0",
    httpMethod: method,
    path,
    resource: "/{proxy+}",
    headers: { Host: "abc.execute-api.eu-west-1.amazonaws.com", "Content-Type": "application/json" },
    body: body === undefined ? null : JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: { identity: { userArn }, httpMethod: method, path, stage: "prod", requestId: "r2" },
  } as unknown as Parameters<typeof handler>[0];
}

describe("apiHandler", () => {
  it("approves over an HTTP API (v2) event; the decision records the IAM caller", async () => {
    const model = script(t.dir, "lambda", [{ toolCalls: [EMAIL] }, DONE]);
    const started = await handler(
      v2("POST", "/runs", { agent: "demo", input: "email Ana", runId: "lam", model }),
    );
    expect(started.statusCode).toBe(202);
    expect(JSON.parse(started.body)).toMatchObject({ runId: "lam" });
    expect(await settled(t.app, "lam")).toMatchObject({ status: "paused" });

    const approved = await handler(v2("POST", "/runs/lam/approvals/call_0_0", { approved: true }));
    expect(approved.statusCode).toBe(202);
    expect(await settled(t.app, "lam")).toMatchObject({ status: "completed", output: "Done" });
    const { events } = (await call(t.app, "GET", "/runs/lam/events")).body as {
      events: Record<string, unknown>[];
    };
    expect(events.find((e) => e.type === "tool_decided")).toMatchObject({ by: ARN });
  });

  it("cancels over a REST API (v1) event as identity.userArn; without a caller, every route is 401", async () => {
    const model = script(t.dir, "lambda-cancel", [{ toolCalls: [EMAIL] }, DONE]);
    const start = { agent: "demo", input: "email Ana", runId: "lam-cancel", model };
    expect((await handler(v2("POST", "/runs", start))).statusCode).toBe(202);
    await settled(t.app, "lam-cancel");
    const cancelled = await handler(v1("POST", "/runs/lam-cancel/cancel", {}));
    expect(cancelled.statusCode).toBe(200);
    expect(JSON.parse(cancelled.body)).toMatchObject({ status: "cancelled" });
    const { events } = (await call(t.app, "GET", "/runs/lam-cancel/events")).body as {
      events: Record<string, unknown>[];
    };
    expect(events.at(-1)).toMatchObject({ type: "cancelled", by: ARN });

    await call(t.app, "POST", "/runs", { agent: "demo", input: "email Ana", runId: "anon", model });
    await settled(t.app, "anon");
    const anon = await handler(v1("POST", "/runs/anon/cancel", {}, null));
    expect(anon.statusCode).toBe(401);
    expect(JSON.parse(anon.body)).toMatchObject({ error: { code: "unauthorized" } });
    expect((await call(t.app, "GET", "/runs/anon")).body).toMatchObject({ status: "paused" });
  });

  it("answers a response over Lambda's 6 MB as a 500 naming the route and its size, not a failed invocation", async () => {
    // A run's final output is answered whole by GET /runs/{id}: 7 MB of it, as no real model writes.
    const output = "all work and no play ".repeat(350_000);
    const model = script(t.dir, "lambda-huge", [{ text: output, stop: "stop" }]);
    expect(
      (await handler(v2("POST", "/runs", { agent: "demo", input: "write", runId: "huge", model })))
        .statusCode,
    ).toBe(202);
    expect(await settled(t.app, "huge")).toMatchObject({ status: "completed" });
    const answer = await handler(v2("GET", "/runs/huge"));
    expect(answer.statusCode).toBe(500);
    expect(answer.headers).toEqual({ "content-type": "application/json" });
    const { error } = JSON.parse(answer.body) as { error: { code: string; message: string } };
    expect(error.code).toBe("response_too_large");
    expect(error.message).toMatch(
      /^GET \/runs\/huge: the response is \d+ bytes, over the 6291456 bytes Lambda can return$/,
    );
    // The same answer over a REST API (v1) event, whose headers are multi-valued.
    const v1answer = await handler(v1("GET", "/runs/huge"));
    expect(v1answer).toMatchObject({ statusCode: 500, isBase64Encoded: false });
    // Small answers pass as they are.
    expect((await handler(v2("GET", "/runs/lam"))).statusCode).toBe(200);
  });

  it("answers errors as JSON through the adapter, and refuses script files by default", async () => {
    const missing = await handler(v2("GET", "/runs/nope"));
    expect(missing.statusCode).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ error: { code: "not_found" } });
    const strict = apiHandler(t.local.runlog);
    const refused = await strict(
      v2("POST", "/runs", { agent: "demo", input: "x", model: "scripted:/etc/hosts" }),
    );
    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { field: "model" } });
  });
});
