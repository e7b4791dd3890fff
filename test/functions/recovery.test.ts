import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import type { ExecutionInput } from "../../lib/ports/runtime.ts";
import { started } from "../contract/fixtures.ts";
import { handlers } from "./handlers.ts";
import { busEvent, failure, nameOf, STATE_MACHINE_ARN, useFunctionEnvironment } from "./support.ts";

const { resume, startRun, sweeper } = handlers;

const env = useFunctionEnvironment("fn-recovery", { STATE_MACHINE_ARN });
const sfn = mockClient(SFNClient);
beforeEach(() => {
  sfn.reset();
  sfn.on(StartExecutionCommand).resolves({ executionArn: "arn", startDate: new Date() });
});

const lastStart = (): { name: string | undefined; input: ExecutionInput } => {
  const call = sfn.commandCalls(StartExecutionCommand).at(-1);
  if (!call) throw new Error("no StartExecution");
  return { name: call.args[0].input.name, input: JSON.parse(call.args[0].input.input!) as ExecutionInput };
};

/** The event Step Functions puts on the default bus when an execution ends badly. */
const ended = (runId: string, generation: number, status: "FAILED" | "TIMED_OUT" | "ABORTED") =>
  busEvent("Step Functions Execution Status Change", {
    executionArn: `arn:aws:states:us-east-1:123456789012:execution:RunMachine:${runId}-g${generation}`,
    stateMachineArn: STATE_MACHINE_ARN,
    name: `${runId}-g${generation}`,
    status,
    startDate: Date.now() - 1000,
    stopDate: Date.now(),
    input: JSON.stringify({
      runId,
      generation,
      next: { action: "model" },
      owner: `sfn:${runId}-g${generation}`,
    }),
    output: null,
  });

describe("the resume function", () => {
  it("resumes a run whose execution failed, starting the next generation's execution", async () => {
    await startRun(busEvent("runlog.StartRun", { agent: "demo", input: "go", runId: "rec-1" }));
    sfn.on(DescribeExecutionCommand).resolves({ status: "FAILED" });
    const out = await resume(ended("rec-1", 1, "FAILED"));
    expect(out).toEqual({ runId: "rec-1", resumed: true, generation: 2, kind: "call_model" });
    const name = await nameOf(env.store(), "rec-1", 2);
    expect(lastStart()).toEqual({
      name,
      input: { runId: "rec-1", generation: 2, next: { action: "model" }, owner: `sfn:${name}` },
    });
  });

  it("leaves a run alone while its execution still runs", async () => {
    await startRun(busEvent("runlog.StartRun", { agent: "demo", input: "go", runId: "rec-2" }));
    sfn.on(DescribeExecutionCommand).resolves({ status: "RUNNING" });
    const out = await resume(ended("rec-2", 1, "ABORTED"));
    const name = await nameOf(env.store(), "rec-2", 1);
    expect(out).toEqual({ runId: "rec-2", resumed: false, why: `being executed by sfn:${name}` });
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(1);
  });

  it("holds back a second automatic resume until its backoff has passed", async () => {
    await startRun(busEvent("runlog.StartRun", { agent: "demo", input: "go", runId: "rec-3" }));
    sfn.on(DescribeExecutionCommand).resolves({ status: "TIMED_OUT" });
    expect(await resume(ended("rec-3", 1, "TIMED_OUT"))).toMatchObject({ resumed: true, generation: 2 });
    const again = await resume(ended("rec-3", 2, "FAILED"));
    expect(again).toMatchObject({ resumed: false, why: expect.stringMatching(/resume 2 is due at/) });
  });

  it("resumes on a runlog.ResumeRun event with the model given, as a person would", async () => {
    await startRun(busEvent("runlog.StartRun", { agent: "demo", input: "go", runId: "rec-4" }));
    sfn.on(DescribeExecutionCommand).resolves({ status: "FAILED" });
    const out = await resume(busEvent("runlog.ResumeRun", { runId: "rec-4", model: "scripted:demo" }));
    expect(out).toMatchObject({ resumed: true, generation: 2 });
    expect((await env.store().read("rec-4")).at(-1)).toMatchObject({
      type: "resumed",
      model: "scripted:demo",
    });
  });

  it("rejects an event it does not know as permanent", async () => {
    const thrown = await failure(resume(busEvent("runlog.Other", { runId: "x" })));
    expect(thrown.name).toBe("PermanentError");
  });
});

describe("the sweeper function", () => {
  it("sweeps the running and interrupted runs and reports what it did", async () => {
    await startRun(busEvent("runlog.StartRun", { agent: "demo", input: "go", runId: "rec-5" }));
    const report = await sweeper({ "detail-type": "Scheduled Event", source: "aws.events", detail: {} });
    expect(report.failed).toEqual([]);
    expect(report.resumed).toEqual([]);
    // Everything here is fresh: a live executor may still be on it, and the sweep's query leaves it out.
    expect(report.skipped.find((s) => s.runId === "rec-5")).toBeUndefined();
    expect(report.complete).toBe(true);
  });

  it("resumes a run left interrupted an hour ago in a new execution", async () => {
    const anHourAgo = env.storeAt({ now: () => new Date(Date.now() - 3_600_000) });
    await anHourAgo.createRun(started("rec-6"));
    await anHourAgo.setStatus("rec-6", "interrupted", 1);
    const report = await sweeper({ "detail-type": "Scheduled Event", source: "aws.events", detail: {} });
    expect(report.resumed).toContainEqual(expect.objectContaining({ runId: "rec-6" }));
    expect(lastStart().input).toMatchObject({ runId: "rec-6", generation: 1 });
  });
});
