import {
  DescribeExecutionCommand,
  ExecutionDoesNotExist,
  SFNClient,
  StartExecutionCommand,
} from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import type { ExecutionInput, NextAction } from "../../lib/ports/runtime.ts";
import { handlers } from "./handlers.ts";
import { busEvent, failure, nameOf, STATE_MACHINE_ARN, useFunctionEnvironment } from "./support.ts";

const { callModel, finish, recordModelFailure, runTool, startRun } = handlers;

const env = useFunctionEnvironment("fn-steps", { STATE_MACHINE_ARN });
const sfn = mockClient(SFNClient);
beforeEach(() => {
  sfn.reset();
  sfn.on(StartExecutionCommand).resolves({ executionArn: "arn", startDate: new Date() });
});

/** The execution input of the n-th StartExecution this test made. */
const started = (n = 0): ExecutionInput => {
  const call = sfn.commandCalls(StartExecutionCommand)[n];
  if (!call) throw new Error(`no StartExecution #${n + 1}`);
  return JSON.parse(call.args[0].input.input!) as ExecutionInput;
};

describe("the startRun function", () => {
  it("starts a run from a runlog.StartRun event and its generation-1 execution", async () => {
    const out = await startRun(
      busEvent("runlog.StartRun", { agent: "demo", input: "Plan my day", runId: "fn-1" }),
    );
    expect(out).toEqual({ runId: "fn-1", created: true });
    // The run's id, its creation time (base 36) and the generation: a run created again under an
    // old id never meets the old run's execution names.
    expect(await nameOf(env.store(), "fn-1", 1)).toMatch(/^fn-1-[0-9a-z]{6,}-g1$/);
    expect(sfn.commandCalls(StartExecutionCommand)[0]!.args[0].input).toMatchObject({
      stateMachineArn: STATE_MACHINE_ARN,
      name: await nameOf(env.store(), "fn-1", 1),
    });
    expect(started()).toEqual({
      runId: "fn-1",
      generation: 1,
      next: { action: "model" },
      owner: `sfn:${await nameOf(env.store(), "fn-1", 1)}`,
    });
    expect((await env.store().getHead("fn-1"))?.lease?.owner).toBe(
      `sfn:${await nameOf(env.store(), "fn-1", 1)}`,
    );
  });

  it("names a run after its event when none is given, so a redelivered event starts nothing new", async () => {
    const event = busEvent(
      "runlog.StartRun",
      { agent: "demo", input: "hi" },
      "0f1e2d3c-aaaa-bbbb-cccc-000000000001",
    );
    expect(await startRun(event)).toEqual({
      runId: "evt-0f1e2d3c-aaaa-bbbb-cccc-000000000001",
      created: true,
    });
    // Step Functions has no execution of that name (the first StartExecution was lost).
    sfn.on(DescribeExecutionCommand).rejects(new ExecutionDoesNotExist({ message: "none", $metadata: {} }));
    expect(await startRun(event)).toMatchObject({ created: false });
    // The redelivery finds the run not yet executing and starts it again under the same execution
    // name, which Step Functions refuses to start twice; so a lost first StartExecution is repaired.
    const names = sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input.name);
    expect(names).toHaveLength(2);
    expect(new Set(names).size).toBe(1);
  });

  it("rejects a bad event as permanent, naming the field, and writes nothing", async () => {
    const bad = await failure(
      startRun(busEvent("runlog.StartRun", { agent: "demo", input: "", runId: "fn-bad" })),
    );
    expect(bad.name).toBe("PermanentError");
    expect(bad.message).toMatch(/^InvalidInputError: invalid input: detail\.input/);
    const unknown = await failure(
      startRun(busEvent("runlog.StartRun", { agent: "nobody", input: "x", runId: "fn-bad" })),
    );
    expect(unknown).toMatchObject({
      name: "PermanentError",
      message: expect.stringMatching(/^NotFoundError: unknown agent/),
    });
    expect(await env.store().read("fn-bad")).toEqual([]);
  });

  it("starts a run under the id of an expired one, deleting the items TTL has not deleted yet", async () => {
    await startRun(busEvent("runlog.StartRun", { agent: "demo", input: "first", runId: "fn-again" }));
    await env.store().expire("fn-again", new Date(Date.now() - 1_000));
    const again = busEvent(
      "runlog.StartRun",
      { agent: "demo", input: "second", runId: "fn-again" },
      "0f1e2d3c-aaaa-bbbb-cccc-000000000002",
    );
    expect(await startRun(again)).toEqual({ runId: "fn-again", created: true });
    expect(await env.store().read("fn-again")).toMatchObject([{ type: "run_started", input: "second" }]);
  });

  it("reports a throttled start as retryable", async () => {
    sfn
      .on(StartExecutionCommand)
      .rejects(Object.assign(new Error("slow down"), { name: "ThrottlingException" }));
    const thrown = await failure(
      startRun(busEvent("runlog.StartRun", { agent: "demo", input: "x", runId: "fn-slow" })),
    );
    expect(thrown.name).toBe("RetryableError");
  });
});

describe("the step functions", () => {
  it("run the demo to completion, task by task, as the state machine would", async () => {
    await startRun(busEvent("runlog.StartRun", { agent: "demo", input: "Plan my day", runId: "fn-2" }));
    const input = started();
    const ids = { runId: "fn-2", generation: 1 };
    let next: NextAction = input.next;
    for (let turns = 0; next.action !== "done" && turns < 10; turns++) {
      if (next.action === "model") next = (await callModel(ids)) as NextAction;
      else if (next.action === "tools") {
        for (const callId of next.callIds)
          expect(await runTool({ ...ids, callId })).toMatchObject({ isError: false });
        next = { action: "model" };
      } else throw new Error(`the demo does not hand off, got ${next.action}`);
    }
    expect(await finish({ ...ids, owner: input.owner })).toMatchObject({
      status: "completed",
      output: expect.stringMatching(/sunglasses/),
    });
    const head = await env.store().getHead("fn-2");
    expect(head).toMatchObject({ status: "completed" });
    expect(head?.lease).toBeUndefined();
    // A retried task finds its work done and does it again nowhere.
    const before = await env.store().read("fn-2");
    expect(await callModel(ids)).toEqual({ action: "done" });
    expect(await env.store().read("fn-2")).toEqual(before);
  });

  it("name their failures by category so Retry and Catch match", async () => {
    const missing = await failure(callModel({ runId: "fn-none", generation: 1 }));
    expect(missing).toEqual({ name: "PermanentError", message: "NotFoundError: run fn-none not found" });
    const bad = await failure(runTool({ runId: "fn-2", generation: "1", callId: "c" }));
    expect(bad).toMatchObject({ name: "PermanentError", message: expect.stringMatching(/generation/) });
    await startRun(busEvent("runlog.StartRun", { agent: "demo", input: "x", runId: "fn-3" }));
    await env.store().append("fn-3", {
      v: 1,
      seq: 2,
      at: new Date().toISOString(),
      type: "resumed",
      generation: 2,
      kind: "call_model",
      description: "taken over",
    });
    expect((await failure(callModel({ runId: "fn-3", generation: 1 }))).name).toBe("StaleError");
  });

  it("record a model failure handed over by a Catch", async () => {
    await startRun(busEvent("runlog.StartRun", { agent: "demo", input: "x", runId: "fn-4" }));
    const error = { Error: "RetryableError", Cause: "ModelUnavailableError: 429 slow down" };
    expect(await recordModelFailure({ runId: "fn-4", generation: 1, error })).toEqual({ recorded: true });
    expect(await recordModelFailure({ runId: "fn-4", generation: 1, error })).toEqual({ recorded: false });
    expect((await env.store().read("fn-4")).at(-1)).toMatchObject({
      type: "model_failed",
      error: { name: "ModelUnavailableError", message: "429 slow down" },
      retryable: true,
    });
    expect(sfn.commandCalls(DescribeExecutionCommand)).toHaveLength(0);
  });

  it("record a model failure from the Cause a Lambda task gives on AWS: its error payload as JSON", async () => {
    await startRun(busEvent("runlog.StartRun", { agent: "demo", input: "x", runId: "fn-5" }));
    const payload = {
      errorType: "ModelRejectedError",
      errorMessage: "ModelRejectedError: 401 bad key",
      trace: [],
    };
    const error = { Error: "ModelRejectedError", Cause: JSON.stringify(payload) };
    expect(await recordModelFailure({ runId: "fn-5", generation: 1, error })).toEqual({ recorded: true });
    expect((await env.store().read("fn-5")).at(-1)).toMatchObject({
      type: "model_failed",
      error: { name: "ModelRejectedError", message: "401 bad key" },
      retryable: false,
    });
  });
});
