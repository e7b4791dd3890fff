import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoEventStore } from "../../lib/adapters/dynamodb/dynamoEventStore.ts";
import { SfnOrchestrator } from "../../lib/adapters/stepfunctions/sfnOrchestrator.ts";
import { agentRegistry, BUILT_IN_AGENTS } from "../../lib/agents/registry.ts";
import { type RunStarted, stamp } from "../../lib/core/events.ts";
import { modelResolver } from "../../lib/runtime/models.ts";
import type { ControlDeps } from "../../lib/steps/deps.ts";
import { LogCache } from "../../lib/steps/logCache.ts";
import { redrive } from "../../lib/steps/redrive.ts";
import { unstoredWork } from "../../lib/steps/unstoredWork.ts";
import { type InProcessDynalite, startDynalite } from "../support/dynalite.ts";
import { connectDynamo } from "../support/store.ts";
import { tally } from "./support/tally.ts";

/**
 * Redrive at fleet scale, after an outage: the DynamoDB adapter on dynalite, Step Functions
 * mocked at the SDK boundary. 1,000 runs ended `failed`: 600 because the model was unreachable
 * (retryable: a redrive brings them back) and 400 because it refused the request (rejected: a
 * redrive would fail the same way, so they stay as they are). Every retryable one must be resumed
 * exactly once, no rejected one touched, and a second redrive must find nothing to do.
 */
const RUNS = 1_000;
const REJECTED_EVERY = 5; // runs 0, 5, 10 … and 2, 7, 12 …: 400 of 1,000
const STATE_MACHINE_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:runlog";
const HOUR = 3_600_000;

let server: InProcessDynalite;
let destroy: () => void;
const requests = new Map<string, number>();
const count = (name: string) => requests.set(name, (requests.get(name) ?? 0) + 1);
const sfn = mockClient(SFNClient);
let deps: ControlDeps;
const retryable = new Set<string>();
const rejected = new Set<string>();
const running = new Set<string>();

const isRejected = (n: number) => n % REJECTED_EVERY === 0 || n % REJECTED_EVERY === 2;
const idOf = (n: number) => `${isRejected(n) ? "rejected" : "retryable"}-${String(n).padStart(4, "0")}`;

beforeAll(async () => {
  server = await startDynalite();
  const { client, tableName } = await connectDynamo({ env: server.env() });
  destroy = () => client.destroy();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      count(String(context.commandName));
      return next(args);
    },
    { step: "initialize", name: "countRequests" },
  );
  // The executions of the outage are gone (FAILED); one a redrive starts runs on (RUNNING).
  sfn.on(DescribeExecutionCommand).callsFake((input: { executionArn: string }) => {
    count("DescribeExecution");
    const status = running.has(input.executionArn) ? "RUNNING" : "FAILED";
    return { executionArn: input.executionArn, status, input: "{}" };
  });
  sfn.on(StartExecutionCommand).callsFake((input: { name: string }) => {
    count("StartExecution");
    const executionArn = `${STATE_MACHINE_ARN.replace(":stateMachine:", ":execution:")}:${input.name}`;
    running.add(executionArn);
    return { executionArn, startDate: new Date() };
  });
  // The outage was two hours ago: every run failed then, a millisecond apart.
  const base = Date.now() - 2 * HOUR;
  const seed = new DynamoEventStore({ client, tableName });
  for (let n = 0; n < RUNS; n++) {
    const runId = idOf(n);
    (isRejected(n) ? rejected : retryable).add(runId);
    const started = stamp(
      { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "go" },
      1,
      new Date(base + n),
    ) as RunStarted;
    await seed.createRun(started);
    const failure = isRejected(n)
      ? { name: "ModelRejectedError", message: "400 the request was refused" }
      : { name: "ModelUnavailableError", message: "503 the provider is down" };
    await seed.append(
      runId,
      stamp(
        { type: "model_failed", error: failure, retryable: !isRejected(n), model: "scripted:demo" },
        2,
        new Date(base + n + 1),
        1,
      ),
    );
    await seed.setStatus(runId, "failed", 2);
  }
  const store = new DynamoEventStore({ client, tableName });
  deps = {
    store,
    logs: new LogCache(store),
    unstored: unstoredWork(),
    agents: agentRegistry({ dataDir: "/tmp/runlog-redrive-scale" }, BUILT_IN_AGENTS),
    models: modelResolver(),
    clock: { now: () => new Date() },
    faults: { reached: () => {} },
    orchestrator: new SfnOrchestrator({
      client: new SFNClient({ region: "us-east-1" }),
      stateMachineArn: STATE_MACHINE_ARN,
    }),
    leaseMs: 24 * HOUR,
  };
  requests.clear();
}, 600_000);

afterAll(async () => {
  sfn.restore();
  destroy?.();
  await server?.stop();
});

describe("redrive at fleet scale", () => {
  it("resumes every run of 1,000 that failed retryably, once, and leaves the rejected ones", async () => {
    const began = performance.now();
    const report = await redrive(deps, { concurrency: 16, perSecond: 1_000 });
    const ms = performance.now() - began;

    expect(report.examined).toBe(RUNS);
    expect(report.failed).toBe(0);
    const resumed = report.runs.filter((run) => run.outcome === "resumed").map((run) => run.runId);
    expect(new Set(resumed).size).toBe(resumed.length);
    expect(new Set(resumed)).toEqual(retryable);
    const skipped = report.runs.filter((run) => run.outcome === "skipped").map((run) => run.runId);
    expect(new Set(skipped)).toEqual(rejected);
    const started = sfn
      .commandCalls(StartExecutionCommand)
      .map((call) => JSON.parse(call.args[0].input.input!).runId as string);
    expect(started.sort()).toEqual([...retryable].sort());
    // A rejected run is as it was: its log still ends at the failure, its head still says failed.
    for (const runId of [...rejected].slice(0, 20)) {
      expect((await deps.store.read(runId)).map((event) => event.type)).toEqual([
        "run_started",
        "model_failed",
      ]);
      expect((await deps.store.getHead(runId))?.status).toBe("failed");
    }

    const perThousand = (n: number) => Math.round((n * 1_000) / RUNS);
    const figures = {
      candidates: RUNS,
      retryable: retryable.size,
      queryPer1000: perThousand(requests.get("QueryCommand") ?? 0),
      getItemPer1000: perThousand(requests.get("GetItemCommand") ?? 0),
      putOrUpdatePer1000: perThousand(
        (requests.get("PutItemCommand") ?? 0) +
          (requests.get("UpdateItemCommand") ?? 0) +
          (requests.get("TransactWriteItemsCommand") ?? 0),
      ),
      describeExecutionPer1000: perThousand(requests.get("DescribeExecution") ?? 0),
      startExecutionPer1000: perThousand(requests.get("StartExecution") ?? 0),
      msPer1000: Math.round((ms * 1_000) / RUNS),
    };
    console.log(
      `[redrive at scale] ${JSON.stringify(figures)} requests=${JSON.stringify(Object.fromEntries(requests))}`,
    );
    tally("redrive at fleet scale", figures);

    // The redriven runs are running again (their executions were started and are RUNNING): a
    // second redrive resumes nobody and starts nothing.
    sfn.resetHistory();
    const again = await redrive(deps, { concurrency: 16, perSecond: 1_000 });
    expect(again.resumed).toBe(0);
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });
});
