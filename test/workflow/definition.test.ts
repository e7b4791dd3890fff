import { StateMachine } from "aws-local-stepfunctions";
import { describe, expect, it } from "vitest";
import {
  ConflictError,
  errorCategory,
  ModelRejectedError,
  ModelUnavailableError,
  RetryableError,
  StaleError,
} from "../../lib/core/errors.ts";
import { RUN_DEFINITION, renderDefinition, TASKS } from "../../lib/workflow/definition.ts";
import {
  LAMBDA_TRANSIENT,
  RETRY_ON,
  SUPERSEDED_ON,
  TASK_TIMED_OUT,
  toWorkflowError,
} from "../../lib/workflow/errors.ts";

type State = { Type: string; Retry?: { ErrorEquals: string[] }[]; Catch?: { ErrorEquals: string[] }[] };

function allStates(states: Record<string, unknown>): [string, State][] {
  return Object.entries(states).flatMap(([name, state]) => {
    const s = state as State & { ItemProcessor?: { States: Record<string, unknown> } };
    return [[name, s] as [string, State], ...(s.ItemProcessor ? allStates(s.ItemProcessor.States) : [])];
  });
}

describe("the run state machine definition", () => {
  const states = allStates(RUN_DEFINITION.States as Record<string, unknown>);

  it("retries and catches only error names the code (or Lambda itself) throws", () => {
    const thrown = new Set([
      toWorkflowError(new ModelUnavailableError("x")).name,
      toWorkflowError(new ConflictError("x")).name,
      toWorkflowError(new StaleError("x")).name,
      toWorkflowError(new ModelRejectedError("x")).name,
      toWorkflowError(new RetryableError("x")).name,
    ]);
    for (const [, state] of states) {
      for (const rule of [...(state.Retry ?? []), ...(state.Catch ?? [])]) {
        for (const name of rule.ErrorEquals) {
          const lambda = ([...LAMBDA_TRANSIENT, ...TASK_TIMED_OUT] as readonly string[]).includes(name);
          expect(name === "States.ALL" || lambda || thrown.has(name), `${name} is never thrown`).toBe(true);
        }
      }
    }
  });

  it("retries every task on retryable errors and stops quietly when superseded", () => {
    const tasks = states.filter(([, s]) => s.Type === "Task");
    expect(tasks.map(([name]) => name).sort()).toEqual(Object.keys(TASKS).sort());
    for (const [name, state] of tasks) {
      expect(state.Retry?.[0]?.ErrorEquals, name).toEqual([...RETRY_ON]);
      expect(state.Retry?.[1]?.ErrorEquals, name).toEqual([...LAMBDA_TRANSIENT]);
      expect(state.Retry?.[2], name).toMatchObject({ ErrorEquals: [...TASK_TIMED_OUT], MaxAttempts: 1 });
    }
    for (const [name, state] of states.filter(([n, s]) => s.Catch && n !== "RunTool")) {
      expect(state.Catch?.[0]?.ErrorEquals, name).toEqual([...SUPERSEDED_ON]);
    }
  });

  it("names a model's errors as such, others by their category, and keeps the original name in the message", () => {
    const mapped = toWorkflowError(new ModelUnavailableError("429 slow down"));
    expect(mapped.name).toBe("ModelUnavailableError");
    expect(mapped.message).toBe("ModelUnavailableError: 429 slow down");
    expect(toWorkflowError(new ModelRejectedError("bad key")).name).toBe("ModelRejectedError");
    expect(toWorkflowError(new RetryableError("throttled")).name).toBe("RetryableError");
    expect(errorCategory(new TypeError("boom"))).toBe("PermanentError");
    expect(errorCategory(new RetryableError("x"))).toBe("RetryableError");
  });

  it("is valid ASL (the local orchestrator relies on this and skips validating it)", () => {
    const arns = Object.fromEntries(
      Object.keys(TASKS).map((t) => [t, `arn:aws:lambda:us-east-1:1:function:${t}`]),
    );
    expect(() => new StateMachine(renderDefinition(arns as never) as never)).not.toThrow();
    const broken = { ...RUN_DEFINITION, StartAt: "Nowhere" };
    expect(() => new StateMachine(broken as never, { validationOptions: { checkArn: false } })).toThrow();
  });

  it("substitutes every task resource and leaves no placeholder", () => {
    const arns = Object.fromEntries(
      Object.keys(TASKS).map((t) => [t, `arn:aws:lambda:eu-west-1:1:function:${t}`]),
    );
    const text = JSON.stringify(renderDefinition(arns as Record<keyof typeof TASKS, string>));
    expect(text).not.toContain("${");
    for (const task of Object.keys(TASKS)) expect(text).toContain(`function:${task}"`);
  });
});
