import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoEventStore } from "../../lib/adapters/dynamodb/dynamoEventStore.ts";
import type { RunStarted } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import { redrive } from "../../lib/steps/redrive.ts";
import { type Fleet, HOUR, perThousandCandidates, STATE_MACHINE_ARN, startFleet } from "./support/fleet.ts";
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

let fleet: Fleet;
const sfn = mockClient(SFNClient);
const retryable = new Set<string>();
const rejected = new Set<string>();
const running = new Set<string>();

const isRejected = (n: number) => n % REJECTED_EVERY === 0 || n % REJECTED_EVERY === 2;
const idOf = (n: number) => `${isRejected(n) ? "rejected" : "retryable"}-${String(n).padStart(4, "0")}`;

beforeAll(async () => {
  fleet = await startFleet("/tmp/runlog-redrive-scale");
  const { count } = fleet;
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
  const seed = new DynamoEventStore(fleet.table);
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
  fleet.requests.clear();
}, 600_000);

afterAll(async () => {
  sfn.restore();
  await fleet?.stop();
});

describe("redrive at fleet scale", () => {
  it("resumes every run of 1,000 that failed retryably, once, and leaves the rejected ones", async () => {
    const began = performance.now();
    const report = await redrive(fleet.deps, { concurrency: 16, perSecond: 1_000 });
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
      expect((await fleet.deps.store.read(runId)).map((event) => event.type)).toEqual([
        "run_started",
        "model_failed",
      ]);
      expect((await fleet.deps.store.getHead(runId))?.status).toBe("failed");
    }

    const figures = {
      candidates: RUNS,
      retryable: retryable.size,
      ...perThousandCandidates(fleet.requests, RUNS, ms),
    };
    console.log(
      `[redrive at scale] ${JSON.stringify(figures)} requests=${JSON.stringify(Object.fromEntries(fleet.requests))}`,
    );
    tally("redrive at fleet scale", figures);

    // The redriven runs are running again (their executions were started and are RUNNING): a
    // second redrive resumes nobody and starts nothing.
    sfn.resetHistory();
    const again = await redrive(fleet.deps, { concurrency: 16, perSecond: 1_000 });
    expect(again.resumed).toBe(0);
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });
});
