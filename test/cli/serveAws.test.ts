import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { CreateTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoEventStore } from "../../lib/adapters/dynamodb/dynamoEventStore.ts";
import { ensureTable } from "../../lib/adapters/dynamodb/table.ts";
import { executionArn, executionName } from "../../lib/adapters/stepfunctions/executionName.ts";
import { openLocal } from "../../lib/api/local.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import { leaseMsFor } from "../../lib/workflow/timeouts.ts";
import { cleanup, ROOT, spawnNode, tempDataDir, testEnv } from "../support/cli.ts";
import { type InProcessDynalite, startDynalite } from "../support/dynalite.ts";
import { createTableWithoutParentIndex } from "../support/oldTable.ts";
import { type Served, serve as serveWith } from "../support/serve.ts";
import { type StepFunctionsStub, startStepFunctionsStub } from "../support/stepFunctionsStub.ts";

/**
 * `runlog serve --table … --state-machine …` as a user runs it against a deployed stack: dynalite
 * plays the stack's table (written by the DynamoDB adapter), a fake Step Functions its state
 * machine; the child reaches both through the SDK's own endpoint variables.
 */
const TABLE = "deployed-runs";
const ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:runlog-runs";
const BIN = join(ROOT, "bin", "runlog.js");

let dynalite: InProcessDynalite;
let sfn: StepFunctionsStub;
let client: DynamoDBClient;
const dir = tempDataDir("serve-aws");
const children: ChildProcess[] = [];

beforeAll(async () => {
  dynalite = await startDynalite();
  sfn = await startStepFunctionsStub(ARN);
  client = new DynamoDBClient({
    endpoint: dynalite.endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
  await ensureTable(client, TABLE);
});

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  client.destroy();
  await sfn.stop();
  await dynalite.stop();
  await cleanup(dir);
});

/** The caller's environment: credentials of their own, and where "AWS" is. */
function awsEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const { AWS_PROFILE: _, AWS_REGION: __, AWS_DEFAULT_REGION: ___, ...env } = testEnv();
  const merged: NodeJS.ProcessEnv = {
    ...env,
    AWS_ACCESS_KEY_ID: "test",
    AWS_SECRET_ACCESS_KEY: "test",
    AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
    AWS_ENDPOINT_URL_SFN: sfn.endpoint,
    AWS_EC2_METADATA_DISABLED: "true",
    AWS_CONFIG_FILE: join(dir, "no-aws-config"),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, "no-aws-credentials"),
  };
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/** `runlog serve --port 0 ARGS` with the AWS environment, killed after the file if still running. */
async function serve(args: string[]): Promise<Served> {
  const served = await serveWith(args, awsEnv());
  children.push(served.child);
  return served;
}

async function post(served: Served, path: string, body: unknown = {}) {
  const response = await served.fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("runlog serve --table --state-machine", () => {
  it("serves the deployed table's runs, and its actions start and stop the state machine's executions", async () => {
    // A run that completed, as the DynamoDB adapter wrote it.
    const local = await openLocal({
      env: { ...dynalite.env({ RUNLOG_TABLE: TABLE, AWS_REGION: "us-east-1" }), RUNLOG_CRASH_AT: "" },
      dataDir: dir,
    });
    const done = await local.runlog.start({ agent: "demo", input: "hello" });
    await local.close();
    // A run whose executor died: its lease has lapsed, so a resume takes it over.
    const store = new DynamoEventStore({ client, tableName: TABLE });
    const first = stamp(
      { type: "run_started", runId: "stuck-1", agent: "demo", model: "scripted:demo", input: "hi" },
      1,
      new Date(),
    );
    await store.createRun(first as never, { owner: "local:gone", until: Date.now() - 1_000 });

    const served = await serve(["--table", TABLE, "--state-machine", ARN]);
    expect(served.output()).toContain(`store: DynamoDB table ${TABLE} and state machine ${ARN} (us-east-1)`);

    const listed = (await (await served.fetch(`/runs`)).json()) as {
      runs: { runId: string; status: string }[];
    };
    expect(listed.runs.map((run) => [run.runId, run.status]).sort()).toEqual(
      [
        [done.runId, "completed"],
        ["stuck-1", "interrupted"],
      ].sort(),
    );

    // A script file is on this machine, not where the stack's CallModel runs: refused, as the deployed API does.
    const scripted = await post(served, `/runs`, {
      agent: "demo",
      input: "hi",
      model: "scripted:/tmp/s.json",
    });
    expect(scripted.status).toBe(400);
    expect(scripted.body).toMatchObject({ error: { field: "model" } });

    const before = Date.now();
    const resumed = await post(served, `/runs/stuck-1/resume`);
    const after = Date.now();
    expect(resumed.status).toBe(202);
    // The lease the stack's functions claim: the state machine's TimeoutSeconds (3600 here) plus the margin.
    const lease = (await store.getHead("stuck-1"))?.lease;
    expect(lease?.until).toBeGreaterThanOrEqual(before + leaseMsFor(3_600));
    expect(lease?.until).toBeLessThanOrEqual(after + leaseMsFor(3_600));
    const name = executionName("stuck-1", 1, first.at);
    const started = sfn.calls.filter((call) => call.operation === "StartExecution");
    expect(started.map((call) => [call.body.stateMachineArn, call.body.name])).toEqual([[ARN, name]]);
    expect(JSON.parse(String(started[0]!.body.input))).toMatchObject({ runId: "stuck-1", generation: 1 });
    expect(resumed.body.status).toBe("running");

    const cancelled = await post(served, `/runs/stuck-1/cancel`, { by: "ops" });
    expect(cancelled.status).toBe(200);
    const stopped = sfn.calls.filter((call) => call.operation === "StopExecution");
    expect(stopped.map((call) => call.body.executionArn)).toEqual([executionArn(ARN, name)]);
    expect(cancelled.body.status).toBe("cancelled");

    served.child.kill("SIGTERM");
    const code = await new Promise((resolve) => served.child.on("exit", resolve));
    expect(code).toBe(0);
  });
});

describe("runlog serve over a table made before the parent index", () => {
  it("serves it, and a run's page says why its forks are not listed and what adds them", async () => {
    await createTableWithoutParentIndex(client, "older-runs");
    const store = new DynamoEventStore({ client, tableName: "older-runs" });
    const first = stamp(
      { type: "run_started", runId: "old-1", agent: "demo", model: "scripted:demo", input: "hi" },
      1,
      new Date(),
    );
    await store.createRun(first as never);
    const served = await serve(["--table", "older-runs", "--state-machine", ARN]);
    const page = await served.fetch(`/runs/old-1/view`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(
      '<dd data-testid="forks">not listed: list forks of run old-1: table older-runs has no index byParent',
    );
    expect((await served.fetch(`/runs`)).status).toBe(200);
    // The JSON route says the same, as what this deployment lacks (501), not as a failure of ours.
    const forks = await served.fetch(`/runs?parent=old-1`);
    expect(forks.status).toBe(501);
    expect(await forks.json()).toMatchObject({
      error: { code: "index_missing", message: expect.stringContaining("has no index byParent") },
    });
    const forksPage = await served.fetch(`/?parent=old-1`);
    expect(forksPage.status).toBe(501);
    expect(await forksPage.text()).toContain("has no index byParent");
    served.child.kill("SIGTERM");
  });
});

describe("runlog serve pointed at a deployment it cannot use", () => {
  /** Exit 2 with one line that names what was wrong, never a stack trace. */
  async function refused(args: string[], env: NodeJS.ProcessEnv = awsEnv()) {
    const result = await spawnNode([BIN, "serve", "--port", "0", ...args], { env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    return lines[0]!;
  }

  it("a table that does not exist", async () => {
    const line = await refused(["--table", "no-such-table", "--state-machine", ARN]);
    expect(line).toMatch(/^runlog: serve: --table "no-such-table": table no-such-table does not exist/);
  });

  it("a table of another shape", async () => {
    await client.send(
      new CreateTableCommand({
        TableName: "not-runlog",
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
        KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
      }),
    );
    const line = await refused(["--table", "not-runlog", "--state-machine", ARN]);
    expect(line).toContain('--table "not-runlog": table not-runlog exists with key schema [id:HASH]');
  });

  it("an ARN that is not a state machine's", async () => {
    const line = await refused([
      "--table",
      TABLE,
      "--state-machine",
      "arn:aws:lambda:us-east-1:123456789012:function:f",
    ]);
    expect(line).toMatch(
      /^runlog: serve: --state-machine: state machine ARN .* expected arn:<partition>:states:/,
    );
  });

  it("a state machine that does not exist", async () => {
    const other = ARN.replace("runlog-runs", "gone");
    const line = await refused(["--table", TABLE, "--state-machine", other]);
    expect(line).toContain(`--state-machine "${other}": describe state machine ${other}`);
    expect(line).toContain("StateMachineDoesNotExist");
  });

  it("no credentials", async () => {
    const env = awsEnv({
      AWS_ACCESS_KEY_ID: undefined,
      AWS_SECRET_ACCESS_KEY: undefined,
      AWS_SESSION_TOKEN: undefined,
    });
    const line = await refused(["--table", TABLE, "--state-machine", ARN], env);
    expect(line).toMatch(/^runlog: serve: no AWS credentials found: set AWS_PROFILE/);
  });

  it.each([
    [["--table", TABLE], "--state-machine ARN is needed with --table"],
    [["--state-machine", ARN], "--table NAME is needed with --state-machine"],
    [["--region", "eu-west-1"], "--region goes with --table and --state-machine"],
    [["--table", TABLE, "--state-machine", ARN, "--dir", "x"], "--dir is the local store's"],
  ])("options that do not go together: %j", async (args, words) => {
    expect(await refused(args)).toContain(words);
  });
});
