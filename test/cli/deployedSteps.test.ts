import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import {
  DescribeExecutionCommand,
  DescribeStateMachineCommand,
  SFNClient,
  StartExecutionCommand,
} from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { DynamoEventStore } from "../../lib/adapters/dynamodb/dynamoEventStore.ts";
import { ensureTable } from "../../lib/adapters/dynamodb/table.ts";
import { openLocal } from "../../lib/api/local.ts";
import { main } from "../../lib/cli/main.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import { cleanup, tempDataDir } from "../support/cli.ts";
import { type InProcessDynalite, startDynalite } from "../support/dynalite.ts";
import { capturedIo } from "./support.ts";

/**
 * The CLI with a deployment configured (RUNLOG_TABLE on AWS, RUNLOG_STATE_MACHINE_ARN): the
 * commands that execute steps start the deployed state machine, as the deployed API does, and
 * run no model or tool here. dynalite plays the stack's table (reached through the SDK's own
 * endpoint variable, as on AWS); Step Functions is mocked, as no local server shows it.
 */
const TABLE = "deployed-steps";
const ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:runlog-runs";
const sfn = mockClient(SFNClient);
let dynalite: InProcessDynalite;
let client: DynamoDBClient;
let store: DynamoEventStore;
const dir = tempDataDir("deployed-steps");
/** A script that asks to send an email: the demo agent's send_email needs approval. */
const emailScript = join(dir, "email.json");
const doneScript = join(dir, "done.json");

beforeAll(async () => {
  dynalite = await startDynalite();
  client = new DynamoDBClient({
    endpoint: dynalite.endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
  await ensureTable(client, TABLE);
  store = new DynamoEventStore({ client, tableName: TABLE });
  writeFileSync(
    emailScript,
    JSON.stringify({
      turns: [
        { toolCalls: [{ name: "send_email", arguments: { to: "ops@example.com", subject: "hi" } }] },
        { text: "sent", stop: "stop" },
      ],
    }),
  );
  writeFileSync(
    doneScript,
    JSON.stringify({
      turns: [
        { text: "answered", stop: "stop" },
        { text: "answered again", stop: "stop" },
      ],
    }),
  );
});

afterAll(async () => {
  client.destroy();
  await dynalite.stop();
  await cleanup(dir);
});

beforeEach(() => {
  // The caller's own credentials, and where "AWS" is, as the SDK reads them from this process.
  vi.stubEnv("AWS_ENDPOINT_URL_DYNAMODB", dynalite.endpoint);
  vi.stubEnv("AWS_ACCESS_KEY_ID", "test");
  vi.stubEnv("AWS_SECRET_ACCESS_KEY", "test");
  vi.stubEnv("AWS_PROFILE", "");
  sfn.reset();
  sfn.on(DescribeStateMachineCommand).resolves({ definition: JSON.stringify({ TimeoutSeconds: 3600 }) });
  sfn.on(StartExecutionCommand).callsFake((input: { name: string }) => ({
    executionArn: `${ARN.replace(":stateMachine:", ":execution:")}:${input.name}`,
    startDate: new Date(),
  }));
  sfn.on(DescribeExecutionCommand).resolves({ status: "RUNNING" });
});

/** A run made by this machine's runlog on the table (the DynamoDB adapter on dynalite), left as `script` leaves it. */
async function runOnTable(script: string): Promise<string> {
  const local = await openLocal({
    env: dynalite.env({ RUNLOG_TABLE: TABLE, AWS_REGION: "us-east-1" }),
    dataDir: dir,
  });
  try {
    const outcome = await local.runlog.start({ agent: "demo", input: "go", model: `scripted:${script}` });
    return outcome.runId;
  } finally {
    await local.close();
  }
}

/** `runlog ARGS` in this process, with the deployment's variables (and the given ones). */
async function runlog(args: string[], extra: Record<string, string> = {}) {
  const { io, out, err } = capturedIo();
  const env = {
    PATH: process.env.PATH,
    RUNLOG_DIR: join(dir, "cli"),
    RUNLOG_TABLE: TABLE,
    RUNLOG_STATE_MACHINE_ARN: ARN,
    AWS_REGION: "us-east-1",
    ...extra,
  };
  const code = await main(args, io, env);
  return { code, out: out.join("\n"), err: err.join("\n") };
}

const started = () =>
  sfn.commandCalls(StartExecutionCommand).map((call) => {
    const { stateMachineArn, input } = call.args[0].input;
    return { stateMachineArn, input: JSON.parse(input ?? "null") as Record<string, unknown> };
  });

const types = async (runId: string) => (await store.read(runId)).map((event) => event.type);

describe("with a deployment configured, the CLI starts its state machine", () => {
  it("approve: the decision is written here, the run goes on in a deployed execution, no step runs here", async () => {
    const runId = await runOnTable(emailScript);
    const [call] = (await store.read(runId)).flatMap((event) =>
      event.type === "model_response" ? event.toolCalls : [],
    );
    const before = await types(runId);
    expect(before.slice(-2)).toEqual(["model_response", "paused"]);

    const result = await runlog(["approve", runId, call!.id, "--by", "ops"]);
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(result.out).toContain(`run ${runId}: running on DynamoDB table ${TABLE} and state machine ${ARN}`);
    // The input the deployed functions give StartExecution: ids and the next action, never the conversation.
    const executions = started();
    expect(executions).toHaveLength(1);
    expect(executions[0]!.stateMachineArn).toBe(ARN);
    expect(executions[0]!.input).toMatchObject({ runId, generation: 2, next: { action: "tools" } });
    // Nothing ran here: no tool_started, no model_response after the decision and the new generation.
    expect(await types(runId)).toEqual([...before, "tool_decided", "resumed"]);
  });

  it.each([
    ["send", (runId: string) => ["send", runId, "and then?"]],
    ["fork", (runId: string) => ["fork", runId, "another way"]],
  ])("%s: a deployed execution continues the run", async (_, args) => {
    const runId = await runOnTable(doneScript);
    const before = await types(runId);
    const result = await runlog(args(runId));
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    const [execution] = started();
    expect(execution?.stateMachineArn).toBe(ARN);
    expect(execution?.input).toMatchObject({ next: { action: "model" } });
    const target = String(execution?.input.runId);
    const after = await types(target);
    expect(after.filter((type) => type === "model_response")).toHaveLength(
      target === runId ? before.filter((type) => type === "model_response").length : 1,
    );
    expect(after.at(-1)).toBe("resumed");
  });

  it("resume: a run whose executor died is taken over by a deployed execution", async () => {
    // Its executor died before any step: its lease has lapsed, so a resume takes it over.
    const runId = "stuck-1";
    const first = stamp(
      { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "hi" },
      1,
      new Date(),
    );
    await store.createRun(first as never, { owner: "local:gone", until: Date.now() - 1_000 });
    const result = await runlog(["resume", runId, "--json"]);
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({ runId, status: "running" });
    expect(started().map((execution) => execution.input)).toEqual([
      expect.objectContaining({ runId, generation: 1, next: { action: "model" } }),
    ]);
    // The deployed execution holds the run now; nothing was executed here.
    expect(await types(runId)).toEqual(["run_started"]);
    expect((await store.getHead(runId))?.lease?.owner).toBe(String(started()[0]?.input.owner));
  });
});

describe("a deployed table without its state machine", () => {
  it("refuses with exit 2, naming the variable, config from-stack and --run-here; writes nothing", async () => {
    const runId = await runOnTable(doneScript);
    const before = await types(runId);
    const result = await runlog(["send", runId, "more"], { RUNLOG_STATE_MACHINE_ARN: "" });
    expect(result.code).toBe(2);
    expect(result.err).toContain("RUNLOG_STATE_MACHINE_ARN");
    expect(result.err).toContain("runlog config from-stack");
    expect(result.err).toContain("--run-here");
    expect(await types(runId)).toEqual(before);
    expect(started()).toEqual([]);
  });

  it.each([["serve"], ["demo"]])(
    "%s, which runs steps here, refuses too, naming --run-here",
    async (command) => {
      const result = await runlog([command], { RUNLOG_STATE_MACHINE_ARN: "" });
      expect(result.code).toBe(2);
      expect(result.err).toContain("--run-here");
      expect(result.out).toBe("");
    },
  );

  it("reads still work: show needs no state machine", async () => {
    const runId = await runOnTable(doneScript);
    const result = await runlog(["show", runId], { RUNLOG_STATE_MACHINE_ARN: "" });
    expect(result.code).toBe(0);
    expect(result.out).toContain("run started: agent demo");
  });

  it("--run-here executes the steps in this process, as before", async () => {
    const runId = await runOnTable(doneScript);
    const result = await runlog(["send", runId, "more", "--run-here"], { RUNLOG_STATE_MACHINE_ARN: "" });
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(result.out).toContain(`run ${runId}: completed`);
    expect(started()).toEqual([]);
    // The model was called here: a second answer after the message.
    expect((await types(runId)).filter((type) => type === "model_response")).toHaveLength(2);
  });
});
