import {
  DescribeExecutionCommand,
  ExecutionDoesNotExist,
  SFNClient,
  StartExecutionCommand,
} from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SfnOrchestrator } from "../../lib/adapters/stepfunctions/index.ts";
import { BUILT_IN_AGENTS } from "../../lib/agents/builtIn.ts";
import { agentRegistry } from "../../lib/agents/registry.ts";
import { Runlog } from "../../lib/api/runlog.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";
import { LogCache } from "../../lib/steps/logCache.ts";
import { unstoredWork } from "../../lib/steps/unstoredWork.ts";
import { cleanup, tempDataDir, testEnv } from "../support/cli.ts";
import { modelsNeverCalled } from "../support/controlDeps.ts";
import { connectStore } from "../support/store.ts";

/**
 * One liveness check for every reader: a run whose lease was just claimed, and whose Step Functions
 * execution has not started yet (within the orchestrator's grace), is running to `ls`,
 * resume-point and outcome, as it is to resume, which refuses to take it over.
 */
const dir = tempDataDir("liveness");
const LEASE_MS = 300_000;
const GRACE_MS = 60_000;
const sfn = mockClient(SFNClient);
const orchestrator = new SfnOrchestrator({
  client: new SFNClient({}),
  stateMachineArn: "arn:aws:states:us-east-1:123456789012:stateMachine:RunMachine",
  startGraceMs: GRACE_MS,
});
let store: EventStore;
let close: () => Promise<void>;
let runlog: Runlog;

beforeAll(async () => {
  ({ store, close } = await connectStore({ dataDir: dir, env: testEnv() }));
  runlog = new Runlog({
    store,
    logs: new LogCache(store),
    unstored: unstoredWork(),
    agents: agentRegistry({ dataDir: dir }, BUILT_IN_AGENTS),
    models: modelsNeverCalled,
    clock: { now: () => new Date() },
    faults: { reached: () => {} },
    orchestrator,
    leaseMs: LEASE_MS,
    ids: { runId: () => "unused" },
  });
  // No execution has been started under any name.
  sfn.on(DescribeExecutionCommand).rejects(new ExecutionDoesNotExist({ message: "none", $metadata: {} }));
});

afterAll(async () => {
  sfn.restore();
  await close();
  await cleanup(dir);
});

/** A run whose lease its starter claimed `claimedAgoMs` ago, its execution not started. */
async function claimed(runId: string, claimedAgoMs: number) {
  const first = stamp(
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "go" },
    1,
    new Date(),
  );
  const owner = orchestrator.leaseOwnerFor({ runId, generation: 1, createdAt: first.at });
  await store.createRun(first as Extract<RunEvent, { type: "run_started" }>, {
    owner,
    until: Date.now() - claimedAgoMs + LEASE_MS,
  });
}

const listed = async (runId: string) => (await runlog.list()).runs.find((run) => run.runId === runId);

describe("a run whose lease was just claimed", () => {
  it("is running to ls, resume-point and outcome while its execution may still start; resume starts that execution", async () => {
    await claimed("just-claimed", 1_000);
    expect((await listed("just-claimed"))?.status).toBe("running");
    expect(await runlog.resumePoint("just-claimed")).toMatchObject({ resumable: false, reason: "running" });
    expect(await runlog.outcome("just-claimed")).toMatchObject({ status: "running" });
    // Nobody takes the run over: resume starts generation 1's own execution (Step Functions runs a
    // name once, so the starter's StartExecution and this one count as one), opening nothing.
    const resumed = await runlog.resume({ runId: "just-claimed" });
    expect(resumed.resume).toMatchObject({ resumed: true, generation: 1, opened: false });
    expect(await store.read("just-claimed")).toHaveLength(1);
    const names = sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input.name);
    // The very name its starter claimed the lease for.
    const claimedName = (await store.getHead("just-claimed"))!.lease!.owner.slice("sfn:".length);
    expect(names).toEqual([claimedName]);
    expect(claimedName).toMatch(/^just-claimed-[0-9a-z]+-g1$/);
  });

  it("is interrupted to all of them once the grace has passed without an execution", async () => {
    await claimed("never-started", GRACE_MS + 60_000);
    expect((await listed("never-started"))?.status).toBe("interrupted");
    expect(await runlog.resumePoint("never-started")).toMatchObject({ resumable: true, kind: "call_model" });
    expect(await runlog.outcome("never-started")).toMatchObject({ status: "interrupted" });
  });
});

describe("a run whose final answer is stored while its execution still holds the lease", () => {
  it("is completed to outcome and the listing at once; a failure its execution may retry is still running", async () => {
    for (const runId of ["answered", "failing"]) await claimed(runId, 1_000);
    await store.append(
      "answered",
      stamp({ type: "model_response", text: "Done", toolCalls: [], stop: "stop" }, 2, new Date()),
    );
    await store.append(
      "failing",
      stamp(
        {
          type: "model_failed",
          error: { name: "ModelUnavailableError", message: "overloaded" },
          retryable: true,
        },
        2,
        new Date(),
      ),
    );
    expect(await runlog.outcome("answered")).toEqual({
      runId: "answered",
      status: "completed",
      output: "Done",
    });
    expect(await runlog.outcome("failing")).toMatchObject({ status: "running", output: null });
    // The listing says what outcome says.
    expect((await listed("answered"))?.status).toBe("completed");
    expect((await listed("failing"))?.status).toBe("running");
  });
});
