import { StateMachine } from "aws-local-stepfunctions";
import { describe, expect, it } from "vitest";
import {
  ModelRejectedError,
  ModelUnavailableError,
  RetryableError,
  StaleError,
} from "../../lib/core/errors.ts";
import { renderDefinition, TASKS, type TaskName } from "../../lib/workflow/definition.ts";
import { toWorkflowError } from "../../lib/workflow/errors.ts";

type Handler = (input: Record<string, unknown>) => unknown;
const ARNS = Object.fromEntries(
  Object.keys(TASKS).map((t) => [t, `arn:aws:lambda:us-east-1:1:function:${t}`]),
) as Record<TaskName, string>;
const MACHINE_ARN = "arn:aws:states:us-east-1:1:stateMachine:runs";

/** Run the definition with each task served by `handlers` (a task's error as the workflow names it). */
async function run(handlers: Partial<Record<TaskName, Handler>>, next: unknown = { action: "model" }) {
  const calls: { task: TaskName; input: Record<string, unknown> }[] = [];
  const served = Object.fromEntries(
    (Object.keys(TASKS) as TaskName[]).map((task) => [
      task,
      async (input: Record<string, unknown>) => {
        calls.push({ task, input });
        const handler = handlers[task];
        if (!handler) throw new Error(`${task} was not expected`);
        try {
          return await handler(input);
        } catch (error) {
          throw toWorkflowError(error);
        }
      },
    ]),
  );
  const machine = new StateMachine(renderDefinition(ARNS) as never, {
    validationOptions: { checkArn: false },
  });
  const execution = machine.run({ runId: "r", generation: 3, next, owner: "o3" } as never, {
    context: { StateMachine: { Id: MACHINE_ARN, Name: "runs" } },
    overrides: {
      taskResourceLocalHandlers: served as never,
      retryIntervalOverrides: Object.fromEntries(Object.keys(TASKS).map((t) => [t, 0])),
    },
  });
  let failed: string | undefined;
  const output = await execution.result.catch((error: Error) => {
    failed = error.message;
    return undefined;
  });
  return {
    calls,
    tasks: calls.map((c) => c.task),
    output: output as Record<string, unknown> | undefined,
    failed,
  };
}

const finished = () => ({ runId: "r", status: "completed", output: "ok" });

describe("routing to Handoff", () => {
  it("hands off when CallModel says so, and ends without Finish once the next execution holds the run", async () => {
    const result = await run({
      CallModel: () => ({ action: "handoff" }),
      Handoff: () => ({ handedOff: true, generation: 4 }),
    });
    expect(result.tasks).toEqual(["CallModel", "Handoff"]);
    expect(result.calls[1]!.input).toEqual({
      runId: "r",
      generation: 3,
      owner: "o3",
      stateMachineArn: MACHINE_ARN,
    });
    expect(result.failed).toBeUndefined();
    expect(result.output?.outcome).toBeUndefined();
  });

  it("hands off before a tool batch too, and from an execution that starts with one", async () => {
    const result = await run(
      {
        RunTool: () => ({ callId: "c1", isError: false }),
        CallModel: () => ({ action: "handoff" }),
        Handoff: () => ({ handedOff: true, generation: 4 }),
      },
      { action: "tools", callIds: ["c1"] },
    );
    expect(result.tasks).toEqual(["RunTool", "CallModel", "Handoff"]);
  });

  it("finishes (releasing its lease) when there was nothing to hand over", async () => {
    const result = await run({
      CallModel: () => ({ action: "handoff" }),
      Handoff: () => ({ handedOff: false, reason: "completed" }),
      Finish: finished,
    });
    expect(result.tasks).toEqual(["CallModel", "Handoff", "Finish"]);
    expect(result.output?.outcome).toEqual(finished());
  });

  it("stops quietly through Finish when a newer generation owns the run", async () => {
    const result = await run({
      CallModel: () => ({ action: "handoff" }),
      Handoff: () => {
        throw new StaleError("generation 4 owns it");
      },
      Finish: finished,
    });
    expect(result.tasks).toEqual(["CallModel", "Handoff", "Finish"]);
    expect(result.failed).toBeUndefined();
  });

  it("retries a handoff that failed transiently", async () => {
    let attempts = 0;
    const result = await run({
      CallModel: () => ({ action: "handoff" }),
      Handoff: () => {
        if (++attempts < 3) throw new RetryableError("throttled");
        return { handedOff: true, generation: 4 };
      },
    });
    expect(result.tasks).toEqual(["CallModel", "Handoff", "Handoff", "Handoff"]);
    expect(result.failed).toBeUndefined();
  });
});

describe("CallModel's failures", () => {
  it.each([
    ["rejected by the model", new ModelRejectedError("400 bad request"), 1],
    ["unavailable after the retries", new ModelUnavailableError("429"), 3],
  ])("records a model failure when %s", async (_, error, attempts) => {
    const result = await run({
      CallModel: () => {
        throw error;
      },
      RecordModelFailure: () => ({ recorded: true }),
      Finish: () => ({ runId: "r", status: "failed", output: null }),
    });
    expect(result.tasks).toEqual([...Array(attempts).fill("CallModel"), "RecordModelFailure", "Finish"]);
    expect(result.calls.at(-2)!.input.error).toMatchObject({ Error: error.name });
    expect(result.failed).toBeUndefined();
  });

  it.each([
    ["a store failure after its retries", new RetryableError("DynamoDB throttled"), 3],
    ["a permanent store failure", new TypeError("boom"), 1],
  ])(
    "never records %s as a model failure: the execution fails, the run interrupted",
    async (_, error, attempts) => {
      const result = await run({
        CallModel: () => {
          throw error;
        },
        Finish: () => ({ runId: "r", status: "interrupted", output: null }),
      });
      expect(result.tasks).toEqual([...Array(attempts).fill("CallModel"), "Finish"]);
      expect(result.failed).toBeDefined();
    },
  );
});
