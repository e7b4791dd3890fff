import {
  DescribeExecutionCommand,
  ExecutionDoesNotExist,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import type { ExecutionInput, NextAction } from "../../lib/ports/runtime.ts";
import { handlers } from "./handlers.ts";
import { STATE_MACHINE_ARN, useFunctionEnvironment } from "./support.ts";

const { api, callModel, runTool, finish } = handlers;

/** The api function behind API Gateway, on dynalite, with Step Functions mocked: every route once. */
const OPS = "arn:aws:iam::123456789012:role/ops";
const env = useFunctionEnvironment("fn-api", { STATE_MACHINE_ARN, RUNLOG_ADMIN_PRINCIPALS: OPS });
const sfn = mockClient(SFNClient);
beforeEach(() => {
  sfn.reset();
  sfn.on(StartExecutionCommand).resolves({ executionArn: "arn", startDate: new Date() });
  sfn.on(DescribeExecutionCommand).rejects(new ExecutionDoesNotExist({ message: "none", $metadata: {} }));
  sfn.on(StopExecutionCommand).resolves({ stopDate: new Date() });
});

/** An HTTP API (payload v2) request as API Gateway sends it with IAM authorization. */
async function request(
  method: string,
  path: string,
  body?: unknown,
  userArn = "arn:aws:iam::123456789012:user/ana",
) {
  const [rawPath = path, rawQueryString = ""] = path.split("?");
  const response = (await api(
    {
      version: "2.0",
      routeKey: "$default",
      rawPath,
      rawQueryString,
      headers: { host: "abc.execute-api.us-east-1.amazonaws.com", "content-type": "application/json" },
      body: body === undefined ? null : JSON.stringify(body),
      isBase64Encoded: false,
      requestContext: {
        accountId: "123456789012",
        apiId: "abc",
        authorizer: { iam: { accountId: "123456789012", userArn } },
        domainName: "abc.execute-api.us-east-1.amazonaws.com",
        domainPrefix: "abc",
        http: { method, path: rawPath, protocol: "HTTP/1.1", sourceIp: "203.0.113.1", userAgent: "test" },
        requestId: "r1",
        routeKey: "$default",
        stage: "$default",
        time: "01/Dec/2026:00:00:00 +0000",
        timeEpoch: 0,
      },
    } as never,
    {} as never,
  )) as { statusCode: number; body: string };
  return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, unknown> };
}

/** Run a started run's execution to its end, task by task, as the state machine would. */
async function complete(runId: string): Promise<void> {
  const input = JSON.parse(
    sfn.commandCalls(StartExecutionCommand).at(-1)!.args[0].input.input!,
  ) as ExecutionInput;
  const ids = { runId, generation: input.generation };
  let next: NextAction = input.next;
  for (let turns = 0; next.action !== "done" && turns < 10; turns++) {
    if (next.action === "model") next = (await callModel(ids)) as NextAction;
    else if (next.action === "tools") {
      for (const callId of next.callIds) await runTool({ ...ids, callId });
      next = { action: "model" };
    } else throw new Error(`the demo does not ${next.action}`);
  }
  await finish({ ...ids, owner: input.owner });
}

describe("the api function", () => {
  it("lists a caller's own runs from the owner index, and every run for an admin", async () => {
    const CAROL = "arn:aws:iam::123456789012:user/carol";
    const start = { agent: "demo", input: "Mine", runId: "api-own" };
    expect((await request("POST", "/runs", start, CAROL)).status).toBe(202);
    await complete("api-own");
    const ids = async (userArn: string) =>
      ((await request("GET", "/runs", undefined, userArn)).body.runs as { runId: string }[]).map(
        (r) => r.runId,
      );
    expect(await ids(CAROL)).toEqual(["api-own"]);
    expect(await ids("arn:aws:iam::123456789012:user/bo")).toEqual([]);
    expect(await ids(OPS)).toContain("api-own");
    expect(
      (await request("GET", "/runs/api-own", undefined, "arn:aws:iam::123456789012:user/bo")).status,
    ).toBe(404);
  });

  it("starts, lists, reads and moves runs on through every route", async () => {
    expect(
      (await request("POST", "/runs", { agent: "demo", input: "Plan my day", runId: "api-1" })).status,
    ).toBe(202);
    await complete("api-1");
    expect((await request("POST", "/runs", { agent: "demo", input: "Other", runId: "api-2" })).status).toBe(
      202,
    );

    const listed: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = await request("GET", `/runs?limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      listed.push(...(page.body.runs as { runId: string }[]).map((run) => run.runId));
      cursor = page.body.cursor as string | undefined;
    } while (cursor);
    expect(listed).toEqual(["api-2", "api-1"]);
    expect((await request("GET", "/runs")).body.runs).toHaveLength(2);

    expect((await request("GET", "/runs/api-1")).body).toMatchObject({ status: "completed" });
    expect((await request("GET", "/runs/api-1/events?after=1")).status).toBe(200);
    expect((await request("GET", "/runs/api-1/resume-point")).body).toMatchObject({ resumable: false });
    expect((await request("POST", "/runs/api-1/resume", {})).status).toBe(200);
    expect((await request("POST", "/runs/api-1/approvals/call_x", { approved: true })).status).toBe(404);
    expect((await request("POST", "/runs/api-1/fork", { forkId: "api-1-fork" })).status).toBe(202);
    expect((await request("GET", "/runs?parent=api-1")).body.runs).toMatchObject([
      { runId: "api-1-fork", parent: { runId: "api-1" } },
    ]);
    const completed = (await request("GET", "/runs?status=completed")).body.runs as { runId: string }[];
    expect(completed.map((run) => run.runId)).toContain("api-1");
    expect(completed.map((run) => run.runId)).not.toContain("api-2");
    expect((await request("POST", "/runs/api-1/messages", { message: "And tomorrow?" })).status).toBe(202);
    expect((await request("POST", "/runs/api-2/cancel", { reason: "not needed" })).status).toBe(200);
    expect((await env.store().getHead("api-2"))?.status).toBe("cancelled");

    // Once retention has removed a run, its id starts a new one, deleting what TTL has not yet.
    await env.store().expire("api-2", new Date(Date.now() - 1_000));
    expect((await request("POST", "/runs", { agent: "demo", input: "Again", runId: "api-2" })).status).toBe(
      202,
    );
    expect(await env.store().read("api-2")).toMatchObject([{ type: "run_started", input: "Again" }]);
  });
});
