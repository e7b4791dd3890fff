import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import {
  DescribeExecutionCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { awsDeps } from "../../functions/deps.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import { cancelRun } from "../../lib/steps/cancel.ts";
import { createFakeOpenAI, stalledStream } from "../helpers/fakeOpenAI.ts";
import { asFunction } from "../support/iam/recorder.ts";
import { handlers } from "./handlers.ts";
import {
  busEvent,
  failure,
  nameOf,
  SECRET_ARN,
  STATE_MACHINE_ARN,
  useFunctionEnvironment,
} from "./support.ts";

const { callModel, startRun } = handlers;
/** On AWS the api function cancels runs (POST /runs/{id}/cancel): its calls are recorded as its own. */
const cancelAsApi = asFunction("api", cancelRun);

const EXECUTIONS = "arn:aws:states:us-east-1:123456789012:execution:RunMachine";
const env = useFunctionEnvironment("fn-cancel", {
  STATE_MACHINE_ARN,
  MODEL_KEY_SECRET_ARN: SECRET_ARN,
  RUNLOG_CANCEL_POLL_MS: "20",
});
const sfn = mockClient(SFNClient);
const secrets = mockClient(SecretsManagerClient);
const fake = createFakeOpenAI();
let stopFake = async () => {};

beforeAll(async () => {
  const { baseURL, close } = await fake.start();
  process.env.OPENAI_BASE_URL = baseURL;
  stopFake = close;
  secrets.on(GetSecretValueCommand).resolves({ SecretString: "sk-test" });
  // Deployed, only callModel holds the secret's ARN and reads it while building its deps: build them
  // here as callModel, though this process plays every function, so the read is recorded as its own.
  await asFunction("callModel", awsDeps)();
});
afterAll(() => stopFake());
beforeEach(() => {
  sfn.reset();
  sfn.on(StartExecutionCommand).resolves({ executionArn: "arn", startDate: new Date() });
});

const start = (runId: string, model?: string) =>
  startRun(busEvent("runlog.StartRun", { agent: "demo", input: "go", runId, ...(model ? { model } : {}) }));

describe("a cancel on AWS", () => {
  it("stops the execution that holds the run's lease", async () => {
    await start("fn-c1");
    sfn.on(DescribeExecutionCommand).resolves({ status: "RUNNING" });
    sfn.on(StopExecutionCommand).resolves({ stopDate: new Date() });
    const deps = (await awsDeps()).control();
    expect(await cancelAsApi(deps, { runId: "fn-c1", by: "ops", reason: "wrong input" })).toEqual({
      cancelled: true,
    });
    const stops = sfn.commandCalls(StopExecutionCommand);
    expect(stops).toHaveLength(1);
    expect(stops[0]!.args[0].input).toEqual({
      executionArn: `${EXECUTIONS}:${await nameOf(env.store(), "fn-c1", 1)}`,
      error: "runlog.Cancelled",
      cause: "run fn-c1 was cancelled by ops: wrong input",
    });
    expect((await env.store().getHead("fn-c1"))?.status).toBe("cancelled");
  });

  it("repeated after the stop failed, stops the execution then", async () => {
    await start("fn-c2");
    sfn.on(DescribeExecutionCommand).resolves({ status: "RUNNING" });
    sfn
      .on(StopExecutionCommand)
      .rejectsOnce(Object.assign(new Error("slow down"), { name: "ThrottlingException" }));
    const deps = (await awsDeps()).control();
    await expect(cancelAsApi(deps, { runId: "fn-c2", by: "ops" })).rejects.toMatchObject({
      name: "RetryableError",
    });
    sfn.on(StopExecutionCommand).resolves({ stopDate: new Date() });
    expect(await cancelAsApi(deps, { runId: "fn-c2", by: "ops" })).toEqual({ cancelled: false });
    expect(sfn.commandCalls(StopExecutionCommand)).toHaveLength(2);
  });
});

describe("the CallModel function", () => {
  it("aborts a model call under way once a cancel is written, and reports the cancel", async () => {
    await start("fn-c3", "openai:gpt-test");
    let streaming!: () => void;
    const underWay = new Promise<void>((resolve) => {
      streaming = resolve;
    });
    // The model sends a little, then nothing: only an abort ends this call (its idle limit is minutes).
    fake.enqueue(stalledStream(["Thinking"], () => streaming()));
    const call = failure(callModel({ runId: "fn-c3", generation: 1 }));
    await underWay;
    await env.store().append("fn-c3", stamp({ type: "cancelled", by: "ops" }, 2, new Date()));
    expect(await call).toEqual({
      name: "StaleError",
      message: "RunCancelledError: run fn-c3 was cancelled by ops",
    });
    expect((await env.store().read("fn-c3")).map((e) => e.type)).toEqual(["run_started", "cancelled"]);
  }, 20_000);
});
