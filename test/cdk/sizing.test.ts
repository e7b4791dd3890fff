import { join } from "node:path";
import { App, Duration, Stack } from "aws-cdk-lib";
import { Architecture } from "aws-cdk-lib/aws-lambda";
import { describe, expect, it } from "vitest";
import type { RunlogProps } from "../../cdk/props.ts";
import { Runlog } from "../../cdk/runlog.ts";
import type { HandlerName } from "../../cdk/runlogFunction.ts";
import { readConfig } from "../../lib/runtime/readConfig.ts";
import { modelDeadline, stepDeadline } from "../../lib/steps/stepBudget.ts";
import { MODEL_CALL_MARGIN_MS, REPORT_MARGIN_MS } from "../../lib/workflow/timeouts.ts";
import { allStates, synthesizedMachine } from "./machine.ts";
import { type Synthesized, synthesizeConstruct } from "./synth.ts";

/** Issue 35 (2): each function sized by the team, the Task states following, bad sizes refused at synth. */
const AGENTS = join(import.meta.dirname, "fixtures", "agents.ts");

type FunctionProps = {
  Timeout: number;
  MemorySize: number;
  Architectures: string[];
  ReservedConcurrentExecutions?: number;
  Environment: { Variables: Record<string, string> };
};
const functionProps = (s: Synthesized, handler: HandlerName) =>
  s.template.findResources("AWS::Lambda::Function")[s.functionIds[handler]]!.Properties as FunctionProps;

describe("functions: sizes per function", () => {
  const s = synthesizeConstruct({
    agentsModule: AGENTS,
    functions: {
      runTool: {
        memorySize: 3_008,
        timeout: Duration.minutes(10),
        architecture: Architecture.X86_64,
        reservedConcurrency: 20,
        environment: { CATALOGUE_URL: "https://catalogue.example" },
      },
      finish: { timeout: Duration.minutes(5) },
      api: { memorySize: 1_024 },
    },
  });

  it("sets each function's memory, timeout, architecture, concurrency and variables as given, the others as runlog's", () => {
    const runTool = functionProps(s, "runTool");
    expect(runTool).toMatchObject({
      MemorySize: 3_008,
      Timeout: 600,
      Architectures: ["x86_64"],
      ReservedConcurrentExecutions: 20,
    });
    expect(runTool.Environment.Variables.CATALOGUE_URL).toBe("https://catalogue.example");
    // The step's deadline follows its function's timeout.
    expect(runTool.Environment.Variables.RUNLOG_STEP_TIMEOUT_SECONDS).toBe("600");
    expect(functionProps(s, "api").MemorySize).toBe(1_024);
    expect(functionProps(s, "callModel")).toMatchObject({
      MemorySize: 512,
      Timeout: 900,
      Architectures: ["arm64"],
    });
    expect("RUNLOG_STEP_TIMEOUT_SECONDS" in functionProps(s, "callModel").Environment.Variables).toBe(false);
    expect("CATALOGUE_URL" in functionProps(s, "callModel").Environment.Variables).toBe(false);
  });

  it("keeps every Task state a minute above its function's timeout, the sized ones included", () => {
    const { definition, functionOf } = synthesizedMachine(s);
    const timeouts = new Map(
      Object.entries(s.template.findResources("AWS::Lambda::Function")).map(([id, r]) => [
        id,
        (r.Properties as FunctionProps).Timeout,
      ]),
    );
    const tasks = allStates(definition.States).filter(([, state]) => state.Type === "Task");
    expect(tasks).toHaveLength(5);
    for (const [name, task] of tasks) {
      expect(task.TimeoutSeconds, name).toBe(timeouts.get(functionOf.get(task.Resource!)!)! + 60);
    }
    expect(Object.fromEntries(tasks.map(([name, task]) => [name, task.TimeoutSeconds]))).toMatchObject({
      RunTool: 660,
      Finish: 360,
    });
  });

  it("gives a sized step its deadline from the variable the construct set", () => {
    const env = functionProps(s, "runTool").Environment.Variables;
    const config = readConfig({ ...env, TABLE_NAME: "runs", RUNLOG_LEASE_MS: "1000" }, { for: "handlers" });
    expect(config.stepTimeoutSeconds).toBe(600);
    const start = new Date(0);
    expect(stepDeadline("RunTool", start, config.stepTimeoutSeconds)).toBe(600_000 - REPORT_MARGIN_MS);
    expect(modelDeadline(start, 300)).toBe(300_000 - MODEL_CALL_MARGIN_MS);
  });
});

describe("functions: bad sizes are refused at synth, naming the prop", () => {
  const cases: [string, NonNullable<RunlogProps["functions"]>][] = [
    ["functions.sandbox", { sandbox: {} } as never],
    ["functions.runTool.memory", { runTool: { memory: 1024 } as never }],
    ["functions.runTool.memorySize", { runTool: { memorySize: 64 } }],
    ["functions.runTool.memorySize", { runTool: { memorySize: 20_000 } }],
    ["functions.runTool.memorySize", { runTool: { memorySize: 1000.5 } }],
    ["functions.runTool.timeout", { runTool: { timeout: Duration.minutes(16) } }],
    ["functions.runTool.timeout", { runTool: { timeout: Duration.millis(1500) } }],
    ["functions.runTool.timeout", { runTool: { timeout: 60 as never } }],
    ["functions.callModel.timeout", { callModel: { timeout: Duration.seconds(60) } }],
    ["functions.api.timeout", { api: { timeout: Duration.seconds(30) } }],
    ["functions.startRun.timeout", { startRun: { timeout: Duration.minutes(6) } }],
    ["functions.sweeper.timeout", { sweeper: { timeout: Duration.minutes(6) } }],
    ["functions.finish.architecture", { finish: { architecture: "arm64" as never } }],
    ["functions.finish.reservedConcurrency", { finish: { reservedConcurrency: 0 } }],
    // Fewer than one response's tool calls at once (maxToolCalls is 10 by default).
    ["functions.runTool.reservedConcurrency", { runTool: { reservedConcurrency: 5 } }],
    ["functions.runTool.environment", { runTool: { environment: { RUNLOG_LEASE_MS: "1" } } }],
    ["functions.runTool.environment", { runTool: { environment: { AWS_REGION: "eu-west-1" } } }],
    ["functions.runTool.environment", { runTool: { environment: { TABLE_NAME: "other" } } }],
    ["functions.runTool.environment", { runTool: { environment: { PORT: 8080 as never } } }],
    ["functions", 5 as never],
  ];
  it.each(cases)("%s: %o", (prop, functions) => {
    const stack = new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "Bad");
    expect(() => new Runlog(stack, "Agents", { agentsModule: AGENTS, functions })).toThrow(
      expect.objectContaining({ name: "RunlogPropsError", prop, message: expect.stringContaining(prop) }),
    );
  });

  it("takes a sweeper timeout up to sweepEvery when the sweep is slower", () => {
    const stack = new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "Slow");
    expect(
      () =>
        new Runlog(stack, "Agents", {
          agentsModule: AGENTS,
          sweepEvery: Duration.minutes(10),
          functions: { sweeper: { timeout: Duration.minutes(5) } },
        }),
    ).not.toThrow();
  });
});
