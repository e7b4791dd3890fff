import { join } from "node:path";
import { Duration } from "aws-cdk-lib";
import { describe, expect, it } from "vitest";
import type { HandlerName } from "../../cdk/runlogFunction.ts";
import { modelClientOptions } from "../../lib/runtime/aws/modelClient.ts";
import {
  LEASE_MARGIN_SECONDS,
  MODEL_CALL_MARGIN_MS,
  MODEL_CLIENT,
  TASK_TIMEOUT_SECONDS,
} from "../../lib/workflow/timeouts.ts";
import { allStates, synthesizedMachine } from "./machine.ts";
import { HANDLERS, type Synthesized, synthesize, synthesizeConstruct } from "./synth.ts";

/**
 * Issue 14: the time limits of a deployment, read back from the synthesized template (no
 * bundling), nest: a model call ends before its function, a function no later than its Task,
 * an execution before its lease.
 */
const AGENTS = join(import.meta.dirname, "fixtures", "agents.ts");
/** API Gateway's most an HTTP API waits for a Lambda integration (TimeoutInMillis' maximum and default). */
const API_GATEWAY_MAX_MS = 30_000;

function functionProps(s: Synthesized, handler: HandlerName) {
  const resource = s.template.findResources("AWS::Lambda::Function")[s.functionIds[handler]]!;
  return resource.Properties as { Timeout: number; Environment: { Variables: Record<string, unknown> } };
}

const timeoutOfId = (s: Synthesized, logicalId: string) =>
  (s.template.findResources("AWS::Lambda::Function")[logicalId]!.Properties as { Timeout: number }).Timeout;

const stack = synthesize();
const twoHours = synthesizeConstruct({ agentsModule: AGENTS, executionTimeout: Duration.hours(2) });

describe("the deployed timeouts", () => {
  it("give every Task state a minute more than its function's timeout, so the function's own ending is what Step Functions sees", () => {
    const { definition, functionOf } = synthesizedMachine(stack);
    const tasks = allStates(definition.States).filter(([, state]) => state.Type === "Task");
    expect(tasks.map(([name]) => name).sort()).toEqual(Object.keys(TASK_TIMEOUT_SECONDS).sort());
    for (const [name, task] of tasks) {
      const fn = timeoutOfId(stack, functionOf.get(task.Resource!)!);
      expect(task.TimeoutSeconds, name).toBeGreaterThanOrEqual(fn + 60);
    }
  });

  it("end every attempt of CallModel's model client, and the waits between, well before its function's timeout", () => {
    const options = modelClientOptions(async () => "sk-test");
    const attempts = options.maxRetries + 1;
    const worstMs = attempts * options.timeoutMs + options.maxRetries * MODEL_CLIENT.retryWaitMs;
    expect(worstMs + MODEL_CALL_MARGIN_MS).toBeLessThan(functionProps(stack, "callModel").Timeout * 1_000);
  });

  it.each([
    { stack: "the default", s: () => stack, seconds: 24 * 3_600 },
    { stack: "executionTimeout: 2 hours", s: () => twoHours, seconds: 2 * 3_600 },
  ])("bound each execution by the definition's TimeoutSeconds ($stack)", ({ s, seconds }) => {
    expect(synthesizedMachine(s()).definition.TimeoutSeconds).toBe(seconds);
  });

  it.each([
    { stack: "the default", s: () => stack },
    { stack: "executionTimeout: 2 hours", s: () => twoHours },
  ])(
    "give every function one lease that outlasts the execution and the start that claimed it ($stack)",
    ({ s }) => {
      const synthesized = s();
      const executionMs = synthesizedMachine(synthesized).definition.TimeoutSeconds! * 1_000;
      const leases = new Set(
        HANDLERS.map((h) => functionProps(synthesized, h).Environment.Variables.RUNLOG_LEASE_MS),
      );
      expect(leases.size).toBe(1);
      const leaseMs = Number([...leases][0]);
      expect(leaseMs).toBeGreaterThanOrEqual(executionMs + LEASE_MARGIN_SECONDS * 1_000);
      // A lease is claimed by a function that then starts the execution: the margin covers the longest of them.
      for (const starter of ["startRun", "resume", "sweeper", "handoff", "api"] as const) {
        expect(functionProps(synthesized, starter).Timeout, starter).toBeLessThanOrEqual(
          LEASE_MARGIN_SECONDS,
        );
      }
    },
  );

  it("let the API function answer before API Gateway gives up on it", () => {
    const [integration] = Object.values(stack.template.findResources("AWS::ApiGatewayV2::Integration"));
    const waitMs = (integration!.Properties.TimeoutInMillis as number | undefined) ?? API_GATEWAY_MAX_MS;
    expect(functionProps(stack, "api").Timeout * 1_000).toBeLessThan(waitMs);
  });

  it("let the sweeper finish one sweep before the schedule starts the next", () => {
    const rates = Object.values(stack.template.findResources("AWS::Events::Rule")).flatMap((rule) => {
      const match = /^rate\((\d+) minutes?\)$/.exec(String(rule.Properties.ScheduleExpression ?? ""));
      return match ? [Number(match[1]) * 60] : [];
    });
    expect(rates).toHaveLength(1);
    expect(functionProps(stack, "sweeper").Timeout).toBeLessThanOrEqual(rates[0]!);
  });
});
