import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { StateMachine } from "aws-local-stepfunctions";
import { mockClient } from "aws-sdk-client-mock";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { HandlerName } from "../../cdk/runlogFunction.ts";
import { handler as api } from "../../functions/api.ts";
import { handler as callModel } from "../../functions/callModel.ts";
import { awsDeps } from "../../functions/deps.ts";
import { handler as finish } from "../../functions/finish.ts";
import { handler as handoff } from "../../functions/handoff.ts";
import { handler as publishLifecycle } from "../../functions/publishLifecycle.ts";
import { handler as recordModelFailure } from "../../functions/recordModelFailure.ts";
import { handler as redriveDeadLetters } from "../../functions/redriveDeadLetters.ts";
import { handler as resume } from "../../functions/resume.ts";
import { handler as runTool } from "../../functions/runTool.ts";
import { handler as startRun } from "../../functions/startRun.ts";
import { handler as steerRun } from "../../functions/steerRun.ts";
import { handler as sweeper } from "../../functions/sweeper.ts";
import {
  ConflictError,
  ModelRejectedError,
  ModelUnavailableError,
  RetryableError,
  StaleError,
} from "../../lib/core/errors.ts";
import type { ExecutionInput } from "../../lib/ports/runtime.ts";
import { startRun as startRunStep } from "../../lib/steps/start.ts";
import { RUN_DEFINITION, renderDefinition, TASKS, type TaskName } from "../../lib/workflow/definition.ts";
import { LAMBDA_TRANSIENT, TASK_TIMED_OUT, toWorkflowError } from "../../lib/workflow/errors.ts";
import { busEvent, STATE_MACHINE_ARN, useFunctionEnvironment } from "../functions/support.ts";
import { allStates, type Machine, synthesizedMachine } from "./machine.ts";
import { type Synthesized, synthesize } from "./synth.ts";

const HANDLERS: Record<HandlerName, (event: unknown) => Promise<unknown>> = {
  callModel,
  runTool,
  recordModelFailure,
  finish,
  handoff,
  startRun,
  steerRun,
  resume,
  sweeper,
  api: (event) => api(event as never, {} as never),
  redriveDeadLetters,
  publishLifecycle,
};
const env = useFunctionEnvironment("cdk-definition", { STATE_MACHINE_ARN });
const sfn = mockClient(SFNClient);
let s: Synthesized;
/** The template's definition with each substitution filled by the ARN of the function it names. */
let deployed: Machine;
let arnToHandler: Map<string, HandlerName>;

const fakeArn = (logicalId: string) => `arn:aws:lambda:us-east-1:123456789012:function:${logicalId}`;
beforeAll(() => {
  s = synthesize();
  const byId = new Map(Object.entries(s.functionIds).map(([handler, id]) => [id, handler as HandlerName]));
  arnToHandler = new Map([...byId].map(([id, handler]) => [fakeArn(id), handler]));
  deployed = synthesizedMachine(s).filled(fakeArn);
});
beforeEach(() => {
  sfn.reset();
  sfn.on(StartExecutionCommand).resolves({ executionArn: "arn", startDate: new Date() });
});

describe("the deployed definition", () => {
  it("retries Lambda's throttles and service errors on every Task at least 6 times, backing off from 2 s", () => {
    const tasks = allStates(deployed.States).filter(([, state]) => state.Type === "Task");
    expect(tasks).toHaveLength(Object.keys(TASKS).length);
    for (const [name, state] of tasks) {
      for (const error of LAMBDA_TRANSIENT) {
        const rule = (state.Retry ?? []).find((r) => r.ErrorEquals.includes(error));
        expect(rule, `${name} ${error}`).toBeDefined();
        expect(rule!.MaxAttempts, name).toBeGreaterThanOrEqual(6);
        expect(rule!.IntervalSeconds, name).toBeGreaterThanOrEqual(2);
        expect(rule!.BackoffRate, name).toBe(2);
        expect(rule, name).toMatchObject({ MaxDelaySeconds: expect.any(Number), JitterStrategy: "FULL" });
      }
    }
    expect(LAMBDA_TRANSIENT).toContain("Lambda.TooManyRequestsException");
  });

  it("is lib/workflow's RUN_DEFINITION, placeholders and all", () => {
    expect(synthesizedMachine(s).definition).toEqual(JSON.parse(JSON.stringify(RUN_DEFINITION)));
  });

  it("substitutes each task with its own function", () => {
    const arns = Object.fromEntries(
      (Object.keys(TASKS) as TaskName[]).map((task) => {
        const handler = (task[0]!.toLowerCase() + task.slice(1)) as HandlerName;
        return [task, fakeArn(s.functionIds[handler])];
      }),
    ) as Record<TaskName, string>;
    expect(deployed).toEqual(renderDefinition(arns));
  });

  it("retries and catches only the error names the functions (or Lambda itself) throw", () => {
    const thrown = new Set(
      [
        new ModelUnavailableError("x"),
        new ConflictError("x"),
        new StaleError("x"),
        new ModelRejectedError("x"),
        new RetryableError("x"),
      ].map((error) => toWorkflowError(error).name),
    );
    const named = allStates(deployed.States).flatMap(([, state]) =>
      [...(state.Retry ?? []), ...(state.Catch ?? [])].flatMap((rule) => rule.ErrorEquals),
    );
    expect(named.length).toBeGreaterThan(0);
    const lambda = new Set<string>([...LAMBDA_TRANSIENT, ...TASK_TIMED_OUT]);
    for (const name of named)
      expect(name === "States.ALL" || lambda.has(name) || thrown.has(name), name).toBe(true);
  });

  it("retries every task once after it timed out, and a Lambda invoke that timed out as Lambda's transient failures", () => {
    const tasks = allStates(deployed.States).filter(([, state]) => state.Type === "Task");
    for (const [name, state] of tasks) {
      const retried = (state.Retry ?? []).flatMap((rule) => rule.ErrorEquals);
      for (const timedOut of ["Sandbox.Timedout", "States.Timeout", "Lambda.ClientExecutionTimeoutException"])
        expect(retried, name).toContain(timedOut);
    }
  });
});

/** Run the deployed definition in-process, each task served by the handler of the function its Resource names. */
async function execute(input: ExecutionInput, failFirst: Record<string, string> = {}) {
  const machine = new StateMachine(deployed as never, { validationOptions: { checkArn: false } });
  const tasks = allStates(deployed.States).filter(([, state]) => state.Type === "Task");
  const calls: Record<string, number> = {};
  const handlers = Object.fromEntries(
    tasks.map(([name, state]) => [
      name,
      (event: unknown) => {
        calls[name] = (calls[name] ?? 0) + 1;
        // The error Step Functions reports when the task's function ran out of time, on its first call.
        const failure = calls[name] === 1 ? failFirst[name] : undefined;
        if (failure) return Promise.reject(Object.assign(new Error("Task timed out"), { name: failure }));
        return HANDLERS[arnToHandler.get(state.Resource!)!](event);
      },
    ]),
  );
  const execution = machine.run(input as never, {
    // What Step Functions gives every execution: RunTool, Finish and Handoff are told their machine by it.
    context: {
      StateMachine: {
        Id: "arn:aws:states:us-east-1:000000000000:stateMachine:runlog-test",
        Name: "runlog-test",
      },
    },
    overrides: {
      taskResourceLocalHandlers: handlers as never,
      retryIntervalOverrides: Object.fromEntries(tasks.map(([name]) => [name, 0])),
    },
  });
  const result = (await execution.result) as { outcome?: { status: string; output: string | null } };
  return { ...result, calls };
}

/**
 * Start a run through the startRun function (on a script file, which no event may name, through
 * the library's start on the functions' deps) and return the execution input it asked Step Functions for.
 */
async function start(runId: string, turns?: unknown[]): Promise<ExecutionInput> {
  if (turns) {
    const path = join(process.env.RUNLOG_DIR!, `${runId}.json`);
    writeFileSync(path, JSON.stringify({ turns }));
    const model = `scripted:${path}`;
    await startRunStep((await awsDeps()).control(), { agent: "demo", input: "Plan my day", runId, model });
  } else {
    await startRun(busEvent("runlog.StartRun", { agent: "demo", input: "Plan my day", runId }));
  }
  const call = sfn.commandCalls(StartExecutionCommand).at(-1)!;
  return JSON.parse(call.args[0].input.input!) as ExecutionInput;
}

describe("an execution of the deployed definition, on the deployed functions", () => {
  it("runs the demo to completion", async () => {
    const result = await execute(await start("cdk-demo"));
    expect(result.outcome).toMatchObject({
      status: "completed",
      output: expect.stringMatching(/sunglasses/),
    });
    expect(await env.store().getHead("cdk-demo")).toMatchObject({ status: "completed" });
  });

  it.each(["Sandbox.Timedout", "States.Timeout"])(
    "retries a model call whose function timed out (%s), and the run completes",
    async (timedOut) => {
      const runId = `cdk-timeout-${timedOut.replace(".", "-").toLowerCase()}`;
      const result = await execute(await start(runId), { CallModel: timedOut });
      expect(result.calls.CallModel).toBeGreaterThan(1);
      expect(result.outcome).toMatchObject({ status: "completed" });
    },
  );

  it("retries a model call that failed retryably, by its category name, then records the failure", async () => {
    // A scripted turn fails the same way each time it is asked, so every retry fails too.
    const result = await execute(
      await start("cdk-retry", [{ error: "rate_limit" }, { text: "Done", stop: "stop" }]),
    );
    expect(result.calls).toMatchObject({ CallModel: 3, RecordModelFailure: 1, Finish: 1 });
    expect(result.outcome).toMatchObject({ status: "failed" });
    expect((await env.store().read("cdk-retry")).at(-1)).toMatchObject({
      type: "model_failed",
      retryable: true,
    });
  });

  it("records a model failure caught by its category name, and ends quietly", async () => {
    const result = await execute(await start("cdk-rejected", [{ error: "rejected" }]));
    expect(result.calls).toMatchObject({ CallModel: 1, RecordModelFailure: 1, Finish: 1 });
    expect(result.outcome).toMatchObject({ status: "failed" });
    expect((await env.store().read("cdk-rejected")).at(-1)).toMatchObject({
      type: "model_failed",
      error: { name: "ModelRejectedError" },
      retryable: false,
    });
  });
});
