import {
  DescribeExecutionCommand,
  ExecutionDoesNotExist,
  SFNClient,
  StartExecutionCommand,
} from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ExecutionInput } from "../../lib/ports/runtime.ts";
import { execute } from "./execute.ts";
import { handlers } from "./handlers.ts";
import { busEvent, nameOf, STATE_MACHINE_ARN, useFunctionEnvironment } from "./support.ts";

// The deployment's agents module (`#agents`, functions/agents.ts): here a triage agent that asks a
// researcher, a sub-agent, as a tool. Only the agents are the test's own; every function is real.
vi.mock("../../functions/agents.ts", async () => {
  const { mkdtempSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const { agentAsTool, defineAgent } = await import("../../lib/index.ts");
  const dir = mkdtempSync(join(tmpdir(), "fn-subagents-models-"));
  const scripted = (name: string, turns: unknown[]) => {
    writeFileSync(join(dir, `${name}.json`), JSON.stringify({ turns }));
    return `scripted:${join(dir, `${name}.json`)}`;
  };
  const researcher = defineAgent({
    name: "researcher",
    instructions: "Find things out.",
    model: scripted("researcher", [{ text: "It is 330 m tall.", stop: "stop" }]),
  });
  const triage = defineAgent({
    name: "triage",
    instructions: "Ask the researcher.",
    model: scripted("triage", [
      { toolCalls: [{ name: "research", arguments: { input: "How tall is the Eiffel tower?" } }] },
      { text: "The researcher says: 330 m.", stop: "stop" },
    ]),
    tools: [agentAsTool(researcher, { name: "research", description: "Ask the researcher" })],
  });
  return { agents: { triage, researcher }, models: undefined, prices: undefined };
});

const { callModel, runTool, startRun } = handlers;

const env = useFunctionEnvironment("fn-subagents", { STATE_MACHINE_ARN });
const sfn = mockClient(SFNClient);
const meta = { $metadata: {} };

beforeEach(() => {
  sfn.reset();
  sfn.on(StartExecutionCommand).resolves({ executionArn: "arn", startDate: new Date() });
  sfn.on(DescribeExecutionCommand).rejects(new ExecutionDoesNotExist({ message: "none", ...meta }));
});

const starts = () =>
  sfn.commandCalls(StartExecutionCommand).map((call) => ({
    stateMachineArn: call.args[0].input.stateMachineArn,
    name: call.args[0].input.name!,
    input: JSON.parse(call.args[0].input.input!) as ExecutionInput,
  }));

describe("a sub-agent call on the deployed functions", () => {
  it("RunTool starts the child's execution; the child's Finish answers the call and starts the parent's next", async () => {
    await startRun(busEvent("runlog.StartRun", { agent: "triage", input: "Eiffel?", runId: "sa-1" }));
    expect(await execute(starts()[0]!.input)).toMatchObject({ outcome: { status: "waiting" } });

    const child = starts()[1]!;
    expect(child).toMatchObject({
      stateMachineArn: STATE_MACHINE_ARN,
      name: await nameOf(env.store(), "sa-1.call_0_0", 1),
      input: { runId: "sa-1.call_0_0", generation: 1 },
    });
    expect(await execute(child.input)).toMatchObject({ outcome: { status: "completed" } });

    const parentNext = starts()[2]!;
    expect(parentNext).toMatchObject({
      name: await nameOf(env.store(), "sa-1", 2),
      input: { runId: "sa-1", generation: 2 },
    });
    expect(await execute(parentNext.input)).toMatchObject({
      outcome: { status: "completed", output: "The researcher says: 330 m." },
    });
    const log = await env.store().read("sa-1");
    expect(log.filter((e) => e.type === "tool_result")).toEqual([
      expect.objectContaining({ callId: "call_0_0", content: "It is 330 m tall.", isError: false }),
    ]);
    expect(log.filter((e) => e.type === "resumed").map((e) => e.by)).toEqual(["subagent"]);
    expect(starts()).toHaveLength(3);
  });

  it("a child that ends while its parent's execution still runs leaves the parent to that execution", async () => {
    await startRun(busEvent("runlog.StartRun", { agent: "triage", input: "Eiffel?", runId: "sa-2" }));
    const parentFirst = await nameOf(env.store(), "sa-2", 1);
    // The child runs to its end inside its own start, before the parent's RunTool has returned:
    // the parent's lease is still its generation-1 execution's, which Step Functions says runs.
    sfn.on(DescribeExecutionCommand).callsFake(async (input: { executionArn: string }) => {
      if (input.executionArn.endsWith(`:${parentFirst}`)) return { status: "RUNNING" };
      throw new ExecutionDoesNotExist({ message: "none", ...meta });
    });
    sfn.on(StartExecutionCommand).callsFake(async (input: { input: string }) => {
      const started = JSON.parse(input.input) as ExecutionInput;
      if (started.runId === "sa-2.call_0_0") await execute(started);
      return { executionArn: "arn", startDate: new Date() };
    });
    expect(await execute(starts()[0]!.input)).toMatchObject({
      outcome: { status: "completed", output: "The researcher says: 330 m." },
    });
    // The child's Finish asked about the parent's execution and started nothing: one generation.
    const describes = sfn.commandCalls(DescribeExecutionCommand).map((c) => c.args[0].input.executionArn);
    expect(describes).toContain(
      `${STATE_MACHINE_ARN.replace(":stateMachine:", ":execution:")}:${parentFirst}`,
    );
    expect(starts().map((s) => s.input.runId)).toEqual(["sa-2", "sa-2.call_0_0"]);
    const log = await env.store().read("sa-2");
    expect(log.filter((e) => e.type === "resumed")).toEqual([]);
    expect(log.filter((e) => e.type === "tool_result")).toHaveLength(1);
  });

  it("a RunTool retried after its child's StartExecution answer was lost asks Step Functions, which runs the child: nothing starts twice", async () => {
    await startRun(busEvent("runlog.StartRun", { agent: "triage", input: "Eiffel?", runId: "sa-3" }));
    const first = starts()[0]!.input;
    // The parent's first turn: its model asks the researcher.
    const ids = { runId: "sa-3", generation: first.generation };
    expect(await callModel(ids)).toMatchObject({ action: "tools", callIds: ["call_0_0"] });
    const request = { ...ids, callId: "call_0_0", batch: ["call_0_0"], stateMachineArn: STATE_MACHINE_ARN };
    // The child's StartExecution reached Step Functions, but its answer was lost.
    sfn
      .on(StartExecutionCommand)
      .rejects(Object.assign(new Error("socket hang up"), { name: "TimeoutError", ...meta }));
    await expect(runTool(request)).rejects.toThrow();
    // The retry asks Step Functions about the child's execution, which runs: nothing starts again.
    const childStart = starts()[1]!;
    sfn.on(DescribeExecutionCommand).resolves({ status: "RUNNING", input: JSON.stringify(childStart.input) });
    await runTool(request);
    expect(starts().map((s) => s.name)).toEqual([starts()[0]!.name, childStart.name]);
    expect(sfn.commandCalls(DescribeExecutionCommand).map((c) => c.args[0].input.executionArn)).toContain(
      `${STATE_MACHINE_ARN.replace(":stateMachine:", ":execution:")}:${childStart.name}`,
    );
    const child = await env.store().read("sa-3.call_0_0");
    expect(child.filter((e) => e.type === "run_started")).toHaveLength(1);
  });
});
