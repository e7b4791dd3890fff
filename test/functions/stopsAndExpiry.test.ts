import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import type { NewEvent } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { ExecutionInput } from "../../lib/ports/runtime.ts";
import { started } from "../contract/fixtures.ts";
import { handlers } from "./handlers.ts";
import { busEvent, nameOf, STATE_MACHINE_ARN, useFunctionEnvironment } from "./support.ts";

const { resume, startRun, sweeper } = handlers;

const env = useFunctionEnvironment("fn-stops", { STATE_MACHINE_ARN });
const sfn = mockClient(SFNClient);
beforeEach(() => {
  sfn.reset();
  sfn.on(StartExecutionCommand).resolves({ executionArn: "arn", startDate: new Date() });
});

const starts = () =>
  sfn
    .commandCalls(StartExecutionCommand)
    .map((call) => JSON.parse(call.args[0].input.input!) as ExecutionInput);

/** The event Step Functions puts on the default bus when an execution is stopped (StopExecution). */
const aborted = (runId: string, name: string, stop: { error: string | null; cause: string | null }) =>
  busEvent("Step Functions Execution Status Change", {
    executionArn: `arn:aws:states:us-east-1:123456789012:execution:RunMachine:${name}`,
    stateMachineArn: STATE_MACHINE_ARN,
    name,
    status: "ABORTED",
    startDate: Date.now() - 1000,
    stopDate: Date.now(),
    input: JSON.stringify({ runId, generation: 1, next: { action: "model" }, owner: `sfn:${name}` }),
    output: null,
    ...stop,
  });

describe("an execution stopped in the Step Functions console", () => {
  it("is not resumed: the run rests interrupted with the reason in its log, until a person resumes it", async () => {
    await startRun(busEvent("runlog.StartRun", { agent: "demo", input: "go", runId: "stop-1" }));
    const name = await nameOf(env.store(), "stop-1", 1);
    sfn.on(DescribeExecutionCommand).resolves({ status: "ABORTED" });

    const out = await resume(aborted("stop-1", name, { error: null, cause: "looked stuck" }));
    expect(out).toEqual({
      runId: "stop-1",
      resumed: false,
      why: "not resumed: execution stopped outside runlog; a person resumes it",
    });
    // EventBridge delivers at least once: the same event again records nothing more.
    await resume(aborted("stop-1", name, { error: null, cause: "looked stuck" }));
    const log = await env.store().read("stop-1");
    expect(log.filter((event) => event.type === "execution_stopped")).toEqual([
      expect.objectContaining({ generation: 1, execution: name, cause: "looked stuck" }),
    ]);
    expect(await env.store().getHead("stop-1")).toMatchObject({ status: "interrupted" });
    expect(starts()).toHaveLength(1);

    // A person's choice (here a ResumeRun event, as the CLI's or the API's resume) goes on.
    const resumed = await resume(busEvent("runlog.ResumeRun", { runId: "stop-1" }));
    expect(resumed).toMatchObject({ resumed: true, generation: 2 });
    expect(starts().at(-1)).toMatchObject({ runId: "stop-1", generation: 2 });
  });

  it("after runlog's own cancel, records nothing and resumes nothing", async () => {
    await startRun(busEvent("runlog.StartRun", { agent: "demo", input: "go", runId: "stop-2" }));
    const name = await nameOf(env.store(), "stop-2", 1);
    const log = await env.store().read("stop-2");
    await env
      .store()
      .append("stop-2", stamp({ type: "cancelled", by: "ann" }, log.length + 1, new Date(), 1));
    sfn.on(DescribeExecutionCommand).resolves({ status: "ABORTED" });

    const out = await resume(
      aborted("stop-2", name, { error: "runlog.Cancelled", cause: "cancelled by ann" }),
    );
    expect(out).toMatchObject({ resumed: false, why: "not resumable: cancelled" });
    expect((await env.store().read("stop-2")).some((event) => event.type === "execution_stopped")).toBe(
      false,
    );
    expect(starts()).toHaveLength(1);
  });
});

describe("the sweeper function and approvals that expire", () => {
  it("answers an expired call as rejected and starts the run's next execution", async () => {
    const anHourAgo = new Date(Date.now() - 3_600_000);
    const store = env.storeAt({ now: () => anHourAgo });
    await store.createRun(started("exp-1", "mail ann", anHourAgo));
    const asking: NewEvent = {
      type: "model_response",
      text: "",
      toolCalls: [{ id: "m", name: "send_email", arguments: '{"to":"ann","subject":"hi","body":"hi"}' }],
      stop: "tool_calls",
      approvals: ["m"],
      approvalTimeouts: { m: 60_000 },
    };
    await store.append("exp-1", stamp(asking, 2, anHourAgo, 1));
    await store.setStatus("exp-1", "paused", 2);

    const report = await sweeper({ "detail-type": "Scheduled Event", source: "aws.events", detail: {} });
    expect(report.approvals.expired).toEqual([{ runId: "exp-1", callIds: ["m"], generation: 2 }]);
    const log = await env.store().read("exp-1");
    expect(log.slice(2)).toEqual([
      expect.objectContaining({
        type: "tool_decided",
        approved: false,
        by: "timeout",
        reason: "approval expired",
      }),
      expect.objectContaining({ type: "resumed", generation: 2, by: "timeout", kind: "run_tools" }),
    ]);
    expect(starts()).toEqual([
      expect.objectContaining({
        runId: "exp-1",
        generation: 2,
        next: { action: "tools", callIds: ["m"], tools: ["send_email"] },
      }),
    ]);
  });
});
