import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  SFNClient,
  StartExecutionCommand,
} from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { awsDeps } from "../../functions/deps.ts";
import { SfnOrchestrator } from "../../lib/adapters/stepfunctions/index.ts";
import type { NewEvent } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { ExecutionInput } from "../../lib/ports/runtime.ts";
import { LogCache } from "../../lib/steps/logCache.ts";
import { resumeRun } from "../../lib/steps/resume.ts";
import { startRun as startRunStep } from "../../lib/steps/start.ts";
import { unstoredWork } from "../../lib/steps/unstoredWork.ts";
import { modelsNeverCalled } from "../support/controlDeps.ts";
import { execute } from "./execute.ts";
import { handlers } from "./handlers.ts";
import { busEvent, nameOf, STATE_MACHINE_ARN, useFunctionEnvironment } from "./support.ts";

const { finish, handoff, startRun } = handlers;

const env = useFunctionEnvironment("fn-handoff", { STATE_MACHINE_ARN, RUNLOG_STEPS_PER_EXECUTION: "3" });
const sfn = mockClient(SFNClient);
const meta = { $metadata: {} };

beforeEach(() => {
  sfn.reset();
  sfn.on(StartExecutionCommand).resolves({ executionArn: "arn", startDate: new Date() });
});

const starts = () =>
  sfn.commandCalls(StartExecutionCommand).map((call) => ({
    stateMachineArn: call.args[0].input.stateMachineArn,
    name: call.args[0].input.name,
    input: JSON.parse(call.args[0].input.input!) as ExecutionInput,
  }));

/** Start a run on a script file as the library does: an event may not name a file (functions/startRun.ts). */
async function startScripted(runId: string, model: string) {
  await startRunStep((await awsDeps()).control(), { agent: "demo", input: "go", runId, model });
}

function weatherScript(runId: string, turns: number): string {
  const path = join(process.env.RUNLOG_DIR!, `${runId}.json`);
  const calls = Array.from({ length: turns }, (_, i) => ({
    toolCalls: [{ name: "get_weather", arguments: { city: `City ${i}` } }],
  }));
  writeFileSync(path, JSON.stringify({ turns: [...calls, { text: "Done", stop: "stop" }] }));
  return `scripted:${path}`;
}

describe("the Handoff function", () => {
  it("continues a long run in executions named after the run and each next generation", async () => {
    const model = weatherScript("ho-1", 4);
    await startScripted("ho-1", model);
    let last: Awaited<ReturnType<typeof execute>> | undefined;
    for (let i = 0; i < 20 && starts().length > i; i++) last = await execute(starts()[i]!.input);
    expect(last?.outcome).toMatchObject({ status: "completed" });
    const started = starts();
    const names = await Promise.all(started.map((_, i) => nameOf(env.store(), "ho-1", i + 1)));
    expect(started.map((s) => s.name)).toEqual(names);
    expect(started.every((s) => s.stateMachineArn === STATE_MACHINE_ARN)).toBe(true);
    expect(started.length).toBeGreaterThan(2);
    for (const [i, s] of started.entries()) {
      expect(s.input).toMatchObject({ runId: "ho-1", generation: i + 1, owner: `sfn:${names[i]}` });
    }
    const log = await env.store().read("ho-1");
    const resumed = log.filter((e) => e.type === "resumed");
    expect(resumed.map((e) => [e.generation, e.by])).toEqual(
      started.slice(1).map((s) => [s.input.generation, "handoff"]),
    );
    expect(log.filter((e) => e.type === "tool_result")).toHaveLength(4);
    expect(await env.store().getHead("ho-1")).toMatchObject({ status: "completed" });
  });

  it("counts a redelivered handoff as done: the same start, or nothing once the next execution has begun", async () => {
    const model = weatherScript("ho-2", 2);
    await startScripted("ho-2", model);
    await execute(starts()[0]!.input);
    const [, second] = starts();
    expect(second?.name).toBe(await nameOf(env.store(), "ho-2", 2));
    const request = {
      runId: "ho-2",
      generation: 1,
      owner: `sfn:${await nameOf(env.store(), "ho-2", 1)}`,
      stateMachineArn: STATE_MACHINE_ARN,
    };
    const logBefore = await env.store().read("ho-2");

    // Not started yet (the log ends in the handoff's event): start it again, which Step Functions counts as started.
    sfn.on(StartExecutionCommand).rejects(new ExecutionAlreadyExists({ message: "exists", ...meta }));
    sfn.on(DescribeExecutionCommand).resolves({ status: "RUNNING", input: JSON.stringify(second!.input) });
    expect(await handoff(request)).toEqual({ handedOff: true, generation: 2 });
    expect(await env.store().read("ho-2")).toEqual(logBefore);

    // Once it has run, a late duplicate changes nothing, not even the head.
    sfn.on(StartExecutionCommand).resolves({ executionArn: "arn", startDate: new Date() });
    await execute(second!.input);
    const head = await env.store().getHead("ho-2");
    const calls = sfn.commandCalls(StartExecutionCommand).length;
    expect(await handoff(request)).toEqual({ handedOff: true, generation: 2 });
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(calls);
    expect(head).toMatchObject({ status: "completed" });
    expect(head?.lease).toBeUndefined();
    expect(await env.store().getHead("ho-2")).toEqual(head);
  });
  it("with nothing left to hand over, gives the lease back to its execution, whose Finish lets the run rest", async () => {
    const model = weatherScript("ho-3", 2);
    await startScripted("ho-3", model);
    // The run ended before the handoff ran (here: its answer is already in the log).
    const answer: NewEvent = { type: "model_response", text: "Done", toolCalls: [], stop: "stop" };
    await env.store().append("ho-3", stamp(answer, 2, new Date(), 1));
    const first = await nameOf(env.store(), "ho-3", 1);
    const request = {
      runId: "ho-3",
      generation: 1,
      owner: `sfn:${first}`,
      stateMachineArn: STATE_MACHINE_ARN,
    };
    expect(await handoff(request)).toEqual({ handedOff: false, reason: "completed" });
    expect(starts().map((s) => s.name)).toEqual([first]);
    expect((await env.store().getHead("ho-3"))?.lease?.owner).toBe(`sfn:${first}`);
    expect(await finish(request)).toMatchObject({ status: "completed", output: "Done" });
    const head = await env.store().getHead("ho-3");
    expect(head).toMatchObject({ status: "completed", lastSeq: 2 });
    expect(head?.lease).toBeUndefined();
  });
});

describe("the lease between its claim and StartExecution", () => {
  it("a second resumer in that window completes the same generation: one `resumed`, one execution name", async () => {
    await startRun(busEvent("runlog.StartRun", { agent: "demo", input: "go", runId: "window" }));
    // Generation 1's execution died: the run is resumable.
    sfn.on(DescribeExecutionCommand).callsFake(async (input: { executionArn: string }) => {
      if (input.executionArn.includes(":window-") && input.executionArn.endsWith("-g1"))
        return { status: "FAILED" };
      throw new ExecutionDoesNotExist({ message: "no", ...meta });
    });
    const waiting: (() => void)[] = [];
    const release = () => {
      for (const start of waiting.splice(0)) start();
    };
    sfn.on(StartExecutionCommand).callsFake(
      () =>
        new Promise((resolve) => {
          waiting.push(() => resolve({ executionArn: "arn", startDate: new Date() }));
        }),
    );
    const store = env.store();
    const deps = controlDeps();
    const first = resumeRun(deps, { runId: "window" });
    // Wait until the first resumer is inside StartExecution: its lease claimed, its execution not there.
    for (let i = 0; i < 200 && sfn.commandCalls(StartExecutionCommand).length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const window2 = await nameOf(store, "window", 2);
    expect((await store.getHead("window"))?.lease?.owner).toBe(`sfn:${window2}`);
    // The run's log ends at generation 2's `resumed` and no execution of it exists yet: the second
    // resumer (a client's retry, say) starts that generation too, under the same name and input,
    // which Step Functions runs once. Nothing is refused, nothing opened twice.
    const second = resumeRun(deps, { runId: "window" });
    for (let i = 0; i < 200 && sfn.commandCalls(StartExecutionCommand).length < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    release();
    await expect(first).resolves.toMatchObject({ resumed: true, generation: 2, opened: true });
    await expect(second).resolves.toMatchObject({ resumed: true, generation: 2, opened: false });
    expect((await store.read("window")).filter((e) => e.type === "resumed")).toHaveLength(1);
    const starts = sfn
      .commandCalls(StartExecutionCommand)
      .slice(1)
      .map((call) => call.args[0].input);
    expect(starts.map((start) => start.name)).toEqual([window2, window2]);
    expect(starts[1]!.input).toBe(starts[0]!.input);
  });
});

/** What the API function gives resume: this test's store, the real Step Functions orchestrator. */
function controlDeps() {
  const store = env.store();
  return {
    store,
    logs: new LogCache(store),
    unstored: unstoredWork(),
    // The functions load the agents module: a resume checks the run's agent is one of them.
    agents: (name: string) => ({ name, instructions: "", tools: [], defaultModel: "scripted:test" }),
    models: modelsNeverCalled,
    clock: { now: () => new Date() },
    faults: { reached: () => {} },
    orchestrator: new SfnOrchestrator({ client: new SFNClient({}), stateMachineArn: STATE_MACHINE_ARN }),
    leaseMs: 24 * 3_600_000,
  };
}

describe("a resume whose StartExecution failed", () => {
  it("is completed by retrying it: the same execution name and input, one generation, no 409", async () => {
    await startRun(busEvent("runlog.StartRun", { agent: "demo", input: "go", runId: "throttled" }));
    // Generation 1's execution failed: the run is resumable.
    sfn.on(DescribeExecutionCommand).callsFake(async (input: { executionArn: string }) => {
      if (input.executionArn.includes(":throttled-") && input.executionArn.endsWith("-g1"))
        return { status: "FAILED" };
      throw new ExecutionDoesNotExist({ message: "no", ...meta });
    });
    const throttled = Object.assign(new Error("Rate exceeded"), { name: "ThrottlingException", ...meta });
    sfn.on(StartExecutionCommand).rejects(throttled);
    const deps = controlDeps();

    await expect(resumeRun(deps, { runId: "throttled" })).rejects.toMatchObject({ name: "RetryableError" });
    // Generation 2 is opened and holds the lease, its execution never started.
    const throttled2 = await nameOf(deps.store, "throttled", 2);
    expect((await deps.store.getHead("throttled"))?.lease?.owner).toBe(`sfn:${throttled2}`);

    sfn.on(StartExecutionCommand).resolves({ executionArn: "arn", startDate: new Date() });
    await expect(resumeRun(deps, { runId: "throttled" })).resolves.toMatchObject({
      resumed: true,
      generation: 2,
      opened: false,
    });
    const starts = sfn
      .commandCalls(StartExecutionCommand)
      .slice(1)
      .map((call) => call.args[0].input);
    expect(starts.map((start) => start.name)).toEqual([throttled2, throttled2]);
    expect(starts[1]!.input).toBe(starts[0]!.input);
    expect((await deps.store.read("throttled")).filter((e) => e.type === "resumed")).toHaveLength(1);
  });
});
