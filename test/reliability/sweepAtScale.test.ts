import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoEventStore } from "../../lib/adapters/dynamodb/dynamoEventStore.ts";
import { forEachConcurrently } from "../../lib/core/concurrency.ts";
import type { RunStarted } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import { sweep } from "../../lib/steps/sweep.ts";
import { type Fleet, HOUR, perThousandCandidates, STATE_MACHINE_ARN, startFleet } from "./support/fleet.ts";
import { tally } from "./support/tally.ts";

/**
 * Recovery at fleet scale: the sweeper against the DynamoDB adapter on dynalite (the status index
 * sharded 8 ways), Step Functions mocked at the SDK boundary. 2,000 running runs, all idle past
 * the threshold, of which 500 (spread over every age) have an execution that is gone: the sweep
 * must resume every dead one, touch no live one and resume none twice, however many there are.
 * The old sweeper read 500 newest first and stopped.
 */
const RUNS = 2_000;
const DEAD_EVERY = 4;

let fleet: Fleet;
const sfn = mockClient(SFNClient);
const dead = new Set<string>();

const first = (runId: string, at: Date): RunStarted => {
  const event = stamp(
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "go" },
    1,
    at,
  );
  if (event.type !== "run_started") throw new Error("unreachable");
  return event;
};

beforeAll(async () => {
  fleet = await startFleet("/tmp/runlog-sweep-scale");
  const { count, orchestrator } = fleet;
  // An execution is RUNNING unless it belongs to a dead run; starts succeed.
  sfn.on(DescribeExecutionCommand).callsFake((input: { executionArn: string }) => {
    count("DescribeExecution");
    const runId = /:([a-z]+-\d+)-/.exec(input.executionArn)?.[1] ?? "";
    return { executionArn: input.executionArn, status: dead.has(runId) ? "FAILED" : "RUNNING", input: "{}" };
  });
  sfn.on(StartExecutionCommand).callsFake((input: { name: string }) => {
    count("StartExecution");
    return { executionArn: `${STATE_MACHINE_ARN}:${input.name}`, startDate: new Date() };
  });
  // The runs were left two hours ago, a millisecond apart: oldest first is a defined order.
  const base = Date.now() - 2 * HOUR;
  let i = 0;
  const at = () => new Date(base + i);
  const seed = new DynamoEventStore({ ...fleet.table, clock: { now: at } });
  const ids = Array.from(
    { length: RUNS },
    (_, n) => `${n % DEAD_EVERY === 1 ? "dead" : "live"}-${String(n).padStart(4, "0")}`,
  );
  for (const runId of ids) if (runId.startsWith("dead")) dead.add(runId);
  for (const runId of ids) {
    i++;
    const started = first(runId, at());
    const owner = orchestrator.leaseOwnerFor({ runId, generation: 1, createdAt: started.at });
    await seed.createRun(started, { owner, until: Date.now() + 24 * HOUR });
  }
  fleet.requests.clear();
}, 600_000);

afterAll(async () => {
  sfn.restore();
  await fleet?.stop();
});

describe("the sweeper at fleet scale", () => {
  it("resumes every dead run of 2,000, touches no live one, resumes none twice", async () => {
    const began = performance.now();
    const report = await sweep(fleet.deps, { statuses: ["running"] });
    const ms = performance.now() - began;

    expect(report.complete).toBe(true);
    expect(report.failed).toEqual([]);
    expect(report.examined).toBe(RUNS);
    const resumed = report.resumed.map((r) => r.runId);
    expect(new Set(resumed).size).toBe(resumed.length);
    expect(new Set(resumed)).toEqual(dead);
    const started = sfn
      .commandCalls(StartExecutionCommand)
      .map((call) => JSON.parse(call.args[0].input.input!).runId);
    expect(started.sort()).toEqual([...dead].sort());
    // Oldest first: the oldest run without progress is the first one left, two hours ago.
    expect(report.oldestStaleAgeMs).toBeGreaterThanOrEqual(2 * HOUR - 60_000);

    const figures = { candidates: RUNS, dead: dead.size, ...perThousandCandidates(fleet.requests, RUNS, ms) };
    console.log(
      `[sweep at scale] ${JSON.stringify(figures)} requests=${JSON.stringify(Object.fromEntries(fleet.requests))}`,
    );
    tally("sweep at fleet scale", figures);

    // Nothing left: a second sweep resumes nobody again, and the live runs' heads are as they were.
    sfn.resetHistory();
    const again = await sweep(fleet.deps, { statuses: ["running"] });
    expect(again.resumed).toEqual([]);
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
    await forEachConcurrently(
      [...Array(RUNS).keys()].filter((n) => n % 97 === 0),
      8,
      async (n) => {
        const runId = `${n % DEAD_EVERY === 1 ? "dead" : "live"}-${String(n).padStart(4, "0")}`;
        const head = await fleet.deps.store.getHead(runId);
        if (runId.startsWith("live")) expect(head).toMatchObject({ leaseVersion: 1, lastSeq: 1 });
      },
    );
  });
});
