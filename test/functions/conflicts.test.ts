import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { handler as resume } from "../../functions/resume.ts";
import { handler as startRun } from "../../functions/startRun.ts";
import { busEvent, failure, STATE_MACHINE_ARN, useFunctionEnvironment } from "./support.ts";

/**
 * Events that find their work done or in other hands are answered, not thrown: a thrown error
 * is retried twice by Lambda's async invoke and then waits in the dead-letter queue, whose alarm
 * someone must answer. Only a real failure may go there.
 */
const env = useFunctionEnvironment("fn-conflicts", { STATE_MACHINE_ARN });
const sfn = mockClient(SFNClient);
beforeEach(() => {
  sfn.reset();
  sfn.on(StartExecutionCommand).resolves({ executionArn: "arn", startDate: new Date() });
});

const start = (runId: string) =>
  startRun(busEvent("runlog.StartRun", { agent: "demo", input: "go", runId }, `id-${runId}`));

describe("benign conflicts", () => {
  it("answers a runlog.ResumeRun for a run that is executing: resumed false, reason running", async () => {
    await start("cf-1");
    sfn.on(DescribeExecutionCommand).resolves({ status: "RUNNING" });
    const out = await resume(busEvent("runlog.ResumeRun", { runId: "cf-1" }));
    expect(out).toEqual({ runId: "cf-1", resumed: false, reason: "running" });
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(1);
    expect((await env.store().read("cf-1")).map((e) => e.type)).toEqual(["run_started"]);
  });

  it("answers the loser of two runlog.ResumeRun events delivered at once; one resume happens", async () => {
    await start("cf-2");
    sfn.on(DescribeExecutionCommand).resolves({ status: "FAILED" });
    const event = busEvent("runlog.ResumeRun", { runId: "cf-2", input: "again" });
    const outs = await Promise.all([resume(event), resume({ ...event, id: "other-delivery" })]);
    expect(outs.filter((out) => out.resumed)).toHaveLength(1);
    const resumedEvents = (await env.store().read("cf-2")).filter((e) => e.type === "resumed");
    expect(resumedEvents).toEqual([expect.objectContaining({ generation: 2, by: "event" })]);
  });

  it("answers a StartRun event delivered again while its run executes: created false", async () => {
    const event = busEvent("runlog.StartRun", { agent: "demo", input: "go" }, "dup-1");
    expect(await startRun(event)).toEqual({ runId: "evt-dup-1", created: true });
    sfn.on(DescribeExecutionCommand).resolves({ status: "RUNNING" });
    const twice = await Promise.all([startRun(event), startRun(event)]);
    for (const out of twice) expect(out).toMatchObject({ runId: "evt-dup-1", created: false });
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(1);
  });

  it("answers the loser of two StartRun redeliveries at once after its first execution ended: created false, reason running", async () => {
    const event = busEvent("runlog.StartRun", { agent: "demo", input: "go" }, "dup-2");
    expect(await startRun(event)).toEqual({ runId: "evt-dup-2", created: true });
    // Generation 1's execution ended without a step: each redelivery opens generation 2, one wins.
    sfn.on(DescribeExecutionCommand).resolves({ status: "FAILED" });
    const twice = await Promise.all([startRun(event), startRun(event)]);
    expect(twice).toContainEqual({ runId: "evt-dup-2", created: false, reason: "running" });
    const resumedEvents = (await env.store().read("evt-dup-2")).filter((e) => e.type === "resumed");
    expect(resumedEvents).toEqual([expect.objectContaining({ generation: 2 })]);
  });

  it("answers a failure event of an old generation while a newer one executes", async () => {
    await start("cf-3");
    sfn.on(DescribeExecutionCommand).resolves({ status: "FAILED" });
    expect(await resume(busEvent("runlog.ResumeRun", { runId: "cf-3" }))).toMatchObject({
      resumed: true,
      generation: 2,
    });
    sfn.on(DescribeExecutionCommand).resolves({ status: "RUNNING" });
    const late = busEvent("Step Functions Execution Status Change", {
      executionArn: "arn:aws:states:us-east-1:123456789012:execution:RunMachine:cf-3-g1",
      status: "FAILED",
      input: JSON.stringify({ runId: "cf-3", generation: 1, next: { action: "model" }, owner: "o" }),
    });
    expect(await resume(late)).toMatchObject({ runId: "cf-3", resumed: false, why: expect.any(String) });
  });

  it("still throws a real failure: a StartRun whose id names a different run", async () => {
    await start("cf-4");
    const other = busEvent("runlog.StartRun", { agent: "demo", input: "something else", runId: "cf-4" });
    const thrown = await failure(startRun(other));
    expect(thrown).toMatchObject({ name: "ConflictError", message: expect.stringMatching(/^IdTakenError/) });
  });
});
