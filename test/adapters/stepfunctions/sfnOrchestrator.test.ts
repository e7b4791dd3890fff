import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  ExecutionLimitExceeded,
  InvalidArn,
  SFNClient,
  SFNServiceException,
  StartExecutionCommand,
  StateMachineDoesNotExist,
  StopExecutionCommand,
} from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { SfnOrchestrator } from "../../../lib/adapters/stepfunctions/index.ts";
import { ConflictError, NotFoundError, PermanentError, RetryableError } from "../../../lib/core/errors.ts";
import type { ExecutionInput } from "../../../lib/ports/runtime.ts";

const MACHINE = "arn:aws:states:us-east-1:123456789012:stateMachine:RunMachine";
const EXECUTION = "arn:aws:states:us-east-1:123456789012:execution:RunMachine";
const sfn = mockClient(SFNClient);
const orchestrator = new SfnOrchestrator({ client: new SFNClient({}), stateMachineArn: MACHINE });
const meta = { $metadata: {} };

const input = (generation = 2): ExecutionInput => ({
  runId: "r1",
  generation,
  next: { action: "model" },
  owner: orchestrator.leaseOwnerFor({ runId: "r1", generation }),
});

beforeEach(() => sfn.reset());

describe("SfnOrchestrator.execute", () => {
  it("starts one execution named after the run and generation, carrying only ids and the next action", async () => {
    sfn.on(StartExecutionCommand).resolves({ executionArn: `${EXECUTION}:r1-g2`, startDate: new Date() });
    await orchestrator.execute(input());
    const calls = sfn.commandCalls(StartExecutionCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toMatchObject({ stateMachineArn: MACHINE, name: "r1-g2" });
    expect(JSON.parse(calls[0]!.args[0].input.input!)).toEqual({
      runId: "r1",
      generation: 2,
      next: { action: "model" },
      owner: "sfn:r1-g2",
    });
  });

  it("counts a start repeated with the same input as started, even after the execution closed", async () => {
    sfn.on(StartExecutionCommand).rejects(new ExecutionAlreadyExists({ message: "exists", ...meta }));
    // Key order differs from ours: equality is by value.
    const stored = JSON.stringify({
      owner: "sfn:r1-g2",
      next: { action: "model" },
      generation: 2,
      runId: "r1",
    });
    sfn.on(DescribeExecutionCommand).resolves({ status: "SUCCEEDED", input: stored });
    await expect(orchestrator.execute(input())).resolves.toBeUndefined();
    expect(sfn.commandCalls(DescribeExecutionCommand)[0]!.args[0].input).toEqual({
      executionArn: `${EXECUTION}:r1-g2`,
    });
  });

  it("refuses a start whose name is taken by an execution with another input", async () => {
    sfn.on(StartExecutionCommand).rejects(new ExecutionAlreadyExists({ message: "exists", ...meta }));
    sfn.on(DescribeExecutionCommand).resolves({
      status: "RUNNING",
      input: JSON.stringify({ ...input(), next: { action: "tools", callIds: ["c1"] } }),
    });
    await expect(orchestrator.execute(input())).rejects.toThrow(ConflictError);
  });

  it.each([
    [
      "throttling",
      Object.assign(new SFNServiceException({ name: "ThrottlingException", $fault: "client", ...meta }), {}),
      RetryableError,
    ],
    ["too many open executions", new ExecutionLimitExceeded({ message: "limit", ...meta }), RetryableError],
    [
      "a 5xx",
      new SFNServiceException({ name: "InternalFailure", $fault: "server", ...meta }),
      RetryableError,
    ],
    [
      "a dropped connection",
      Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
      RetryableError,
    ],
    ["a missing state machine", new StateMachineDoesNotExist({ message: "gone", ...meta }), NotFoundError],
    ["a bad ARN", new InvalidArn({ message: "bad", ...meta }), PermanentError],
    [
      "access denied",
      new SFNServiceException({ name: "AccessDeniedException", $fault: "client", ...meta }),
      PermanentError,
    ],
  ])("maps %s to its runlog category", async (_, error, category) => {
    sfn.on(StartExecutionCommand).rejects(error);
    const thrown = await orchestrator.execute(input()).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(category);
    expect((thrown as Error).message).toMatch(/start execution r1-g2 of run r1/);
  });
});

describe("SfnOrchestrator.isAlive", () => {
  it.each([
    ["RUNNING", true],
    ["SUCCEEDED", false],
    ["FAILED", false],
    ["TIMED_OUT", false],
    ["ABORTED", false],
  ] as const)("an execution that is %s is alive: %s", async (status, alive) => {
    sfn.on(DescribeExecutionCommand).resolves({ status });
    expect(await orchestrator.isAlive("sfn:r1-g2")).toBe(alive);
  });

  it("an execution that was never started is not alive", async () => {
    sfn.on(DescribeExecutionCommand).rejects(new ExecutionDoesNotExist({ message: "no", ...meta }));
    expect(await orchestrator.isAlive("sfn:r1-g3")).toBe(false);
  });

  it("an execution not started yet is alive for a grace period after its lease was claimed", async () => {
    sfn.on(DescribeExecutionCommand).rejects(new ExecutionDoesNotExist({ message: "no", ...meta }));
    const now = 1_000_000_000;
    const clocked = new SfnOrchestrator({
      client: new SFNClient({}),
      stateMachineArn: MACHINE,
      startGraceMs: 60_000,
      now: () => now,
    });
    // Between the claim and StartExecution: a second resumer must find the run held.
    expect(await clocked.isAlive("sfn:r1-g3", now - 1_000)).toBe(true);
    // A claimer that died before starting it: taken over once the grace has passed.
    expect(await clocked.isAlive("sfn:r1-g3", now - 60_000)).toBe(false);
    // An execution that ran and ended is gone, however recent the claim.
    sfn.on(DescribeExecutionCommand).resolves({ status: "SUCCEEDED" });
    expect(await clocked.isAlive("sfn:r1-g3", now - 1_000)).toBe(false);
  });

  it("an owner that is not an execution is left to its lease time", async () => {
    expect(await orchestrator.isAlive("local:laptop:123:abcd")).toBe(true);
    expect(sfn.calls()).toHaveLength(0);
  });

  it("a throttled describe is retryable, not a verdict", async () => {
    sfn
      .on(DescribeExecutionCommand)
      .rejects(new SFNServiceException({ name: "ThrottlingException", $fault: "client", ...meta }));
    await expect(orchestrator.isAlive("sfn:r1-g2")).rejects.toThrow(RetryableError);
  });
});

describe("SfnOrchestrator.describe and stop", () => {
  it("describes a generation's execution with its parsed input", async () => {
    const startDate = new Date("2026-01-01T00:00:00Z");
    sfn
      .on(DescribeExecutionCommand)
      .resolves({ status: "RUNNING", input: JSON.stringify(input()), startDate });
    expect(await orchestrator.describe({ runId: "r1", generation: 2 })).toEqual({
      name: "r1-g2",
      arn: `${EXECUTION}:r1-g2`,
      status: "RUNNING",
      input: input(),
      startDate,
    });
  });

  it("stops a running execution with the reason given", async () => {
    sfn.on(DescribeExecutionCommand).resolves({ status: "RUNNING" });
    sfn.on(StopExecutionCommand).resolves({ stopDate: new Date() });
    const stopped = await orchestrator.stopGeneration(
      { runId: "r1", generation: 2 },
      { error: "Cancelled", cause: "by user" },
    );
    expect(stopped).toBe(true);
    expect(sfn.commandCalls(StopExecutionCommand)[0]!.args[0].input).toEqual({
      executionArn: `${EXECUTION}:r1-g2`,
      error: "Cancelled",
      cause: "by user",
    });
  });

  it("does not stop what is not running", async () => {
    sfn.on(DescribeExecutionCommand).resolves({ status: "SUCCEEDED" });
    expect(
      await orchestrator.stopGeneration({ runId: "r1", generation: 2 }, { error: "E", cause: "c" }),
    ).toBe(false);
    sfn.on(DescribeExecutionCommand).rejects(new ExecutionDoesNotExist({ message: "no", ...meta }));
    expect(
      await orchestrator.stopGeneration({ runId: "r1", generation: 9 }, { error: "E", cause: "c" }),
    ).toBe(false);
    expect(sfn.commandCalls(StopExecutionCommand)).toHaveLength(0);
  });
});

describe("SfnOrchestrator.executionOf and stop by owner", () => {
  it.each([
    ["RUNNING", "running"],
    ["SUCCEEDED", "ended"],
    ["FAILED", "ended"],
    ["TIMED_OUT", "ended"],
    ["ABORTED", "ended"],
    ["PENDING_REDRIVE", "ended"],
  ] as const)("an execution that is %s is %s", async (status, state) => {
    sfn.on(DescribeExecutionCommand).resolves({ status });
    expect(await orchestrator.executionOf("sfn:r1-g2")).toBe(state);
  });

  it("an execution never started is none, with no grace for a start to come", async () => {
    sfn.on(DescribeExecutionCommand).rejects(new ExecutionDoesNotExist({ message: "no", ...meta }));
    expect(await orchestrator.executionOf("sfn:r1-g3")).toBe("none");
  });

  it("owners that are not executions are none, and nothing is stopped for them", async () => {
    expect(await orchestrator.executionOf("local:laptop:123:abcd")).toBe("none");
    expect(await orchestrator.stop("local:laptop:123:abcd", "cancelled")).toBe(false);
    expect(sfn.calls()).toHaveLength(0);
  });

  it("stops the running execution an owner names, as a cancel", async () => {
    sfn.on(DescribeExecutionCommand).resolves({ status: "RUNNING" });
    sfn.on(StopExecutionCommand).resolves({ stopDate: new Date() });
    expect(await orchestrator.stop("sfn:r1-g2", "run r1 was cancelled by ops")).toBe(true);
    expect(sfn.commandCalls(StopExecutionCommand)[0]!.args[0].input).toEqual({
      executionArn: `${EXECUTION}:r1-g2`,
      error: "runlog.Cancelled",
      cause: "run r1 was cancelled by ops",
    });
  });

  it("a stop that races the execution's end is no stop", async () => {
    sfn.on(DescribeExecutionCommand).resolves({ status: "RUNNING" });
    sfn.on(StopExecutionCommand).rejects(new ExecutionDoesNotExist({ message: "gone", ...meta }));
    expect(await orchestrator.stop("sfn:r1-g2", "cancelled")).toBe(false);
  });
});
