import { describe, expect, it } from "vitest";
import { compileDefinition } from "../../../../lib/runtime/local/asl/compile.ts";
import { ExecutionFailedError, ExecutionTimedOutError } from "../../../../lib/runtime/local/asl/errors.ts";
import { startExecution } from "../../../../lib/runtime/local/asl/execute.ts";

const resources = { "arn:step": "step" };

async function failureOf(result: Promise<unknown>): Promise<ExecutionFailedError> {
  try {
    await result;
  } catch (error) {
    if (error instanceof ExecutionFailedError) return error;
    throw error;
  }
  throw new Error("the execution succeeded");
}

describe("startExecution", () => {
  it("sets a ResultPath by copying only the objects along it: the input is not changed, the rest is shared", async () => {
    const machine = compileDefinition(
      { StartAt: "T", States: { T: { Type: "Task", Resource: "arn:step", ResultPath: "$.a.b", End: true } } },
      { resources },
    );
    const input = { a: { keep: 1 }, other: { big: [1, 2, 3] } };
    const output = (await startExecution(machine, input, { handlers: { step: async () => "r" } })
      .result) as typeof input;
    expect(output).toEqual({ a: { keep: 1, b: "r" }, other: { big: [1, 2, 3] } });
    expect(input).toEqual({ a: { keep: 1 }, other: { big: [1, 2, 3] } });
    expect(output.other).toBe(input.other);
  });

  it("fails with States.NoChoiceMatched when no choice matches and there is no Default", async () => {
    const machine = compileDefinition(
      {
        StartAt: "C",
        States: {
          C: { Type: "Choice", Choices: [{ Variable: "$.x", StringEquals: "y", Next: "S" }] },
          S: { Type: "Succeed" },
        },
      },
      { resources },
    );
    const failure = await failureOf(startExecution(machine, { x: "z" }, { handlers: {} }).result);
    expect(failure.error).toBe("States.NoChoiceMatched");
  });

  it("does not catch a path with no value (States.Runtime), even with States.ALL", async () => {
    const machine = compileDefinition(
      {
        StartAt: "T",
        States: {
          T: {
            Type: "Task",
            Resource: "arn:step",
            Parameters: { "id.$": "$.missing" },
            Catch: [{ ErrorEquals: ["States.ALL"], Next: "S" }],
            End: true,
          },
          S: { Type: "Succeed" },
        },
      },
      { resources },
    );
    const failure = await failureOf(
      startExecution(machine, {}, { handlers: { step: async () => 1 } }).result,
    );
    expect(failure.error).toBe("States.Runtime");
    expect(failure.causeText).toContain("$.missing");
  });

  it("ends at the top-level TimeoutSeconds with ExecutionTimedOutError, and stops retrying", async () => {
    const machine = compileDefinition(
      {
        StartAt: "T",
        TimeoutSeconds: 1,
        States: {
          T: {
            Type: "Task",
            Resource: "arn:step",
            Retry: [{ ErrorEquals: ["States.ALL"], IntervalSeconds: 1, MaxAttempts: 100 }],
            End: true,
          },
        },
      },
      { resources },
    );
    let attempts = 0;
    const execution = startExecution(
      machine,
      {},
      {
        handlers: {
          step: async () => {
            attempts++;
            throw new Error("again");
          },
        },
        retryIntervalMs: 50,
      },
    );
    await expect(execution.result).rejects.toBeInstanceOf(ExecutionTimedOutError);
    const after = attempts;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(attempts).toBe(after);
    // Started, the Task's entry (4), its retries (3 each), the timeout.
    expect(execution.history.events).toBe(1 + 4 + 3 * (after - 1) + 1);
  });

  it("refuses to start without a handler for a Resource", () => {
    const machine = compileDefinition(
      { StartAt: "T", States: { T: { Type: "Task", Resource: "arn:step", End: true } } },
      { resources },
    );
    expect(() => startExecution(machine, {}, { handlers: {} })).toThrow(/no handler for step/);
  });
});
