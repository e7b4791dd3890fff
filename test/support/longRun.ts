import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import * as z from "zod";
import { defineTool } from "../../lib/agents/defineTool.ts";
import type { AgentFactory } from "../../lib/agents/registry.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import type { ExecutionReport, Observer } from "../../lib/ports/runtime.ts";
import { RUN_DEFINITION } from "../../lib/workflow/definition.ts";
import { events, notes, runlog, runlogJson, script } from "./cli.ts";

/**
 * A model script of `turns` turns, each one call of the idempotent `count`
 * tool with the turn's number, then a final answer. Written to `dir`; returns its spec.
 */
export function countingScript(dir: string, name: string, turns: number): string {
  const script = {
    turns: [
      ...Array.from({ length: turns }, (_, n) => ({ toolCalls: [{ name: "count", arguments: { n } }] })),
      { text: `counted to ${turns}`, stop: "stop" },
    ],
  };
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(script));
  return `scripted:${path}`;
}

/** An agent with one cheap idempotent tool, `count`, that remembers how often each number ran. */
export function countingAgent(): { agents: Record<string, AgentFactory>; runs: Map<number, number> } {
  const runs = new Map<number, number>();
  const count = defineTool({
    name: "count",
    description: "Count one number.",
    parameters: z.object({ n: z.number().int() }),
    idempotent: true,
    run: ({ n }) => {
      runs.set(n, (runs.get(n) ?? 0) + 1);
      return String(n);
    },
  });
  return {
    agents: {
      counter: () => ({
        name: "counter",
        instructions: "Count.",
        tools: [count as never],
        defaultModel: "scripted:demo",
        // A long run by design: counting goes on far past the default maxTurns.
        limits: { maxTurns: 1_000_000 },
      }),
    },
    runs,
  };
}

/** An observer keeping the executions' reports (each with its counted history). */
export function executionRecorder(): Observer & { executions: ExecutionReport[] } {
  const executions: ExecutionReport[] = [];
  return {
    executions,
    appended: (_runId: string, _event: RunEvent) => {},
    executionEnded: (report) => executions.push(report),
  };
}

/** Every retry a state's retriers allow together (Step Functions' default MaxAttempts is 3). */
const retriesOf = (state: { Retry?: readonly { MaxAttempts?: number }[] }) =>
  (state.Retry ?? []).reduce((n, retrier) => n + (retrier.MaxAttempts ?? 3), 0);

/** History events a state writes, as Step Functions writes them (see lib/steps/stepBudget.ts). */
const TASK = 5;
const PER_RETRY = 3;
const CHOICE = 2;
const MAP = 4;
const ITERATION = 2;
/** An execution's own start and end: ExecutionStarted/Succeeded, the first Route, Finish or Handoff, the last Choice. */
const EXECUTION = 60;

const STATES = RUN_DEFINITION.States;
/** CallModel with every retry spent, the Route after it and the Map it opens. */
export const WORST_MODEL_STEP = TASK + PER_RETRY * retriesOf(STATES.CallModel) + CHOICE + MAP;
/** RunTool with every retry spent, in its Map iteration. */
export const WORST_TOOL_STEP =
  TASK + PER_RETRY * retriesOf(STATES.RunTools.ItemProcessor.States.RunTool) + ITERATION;

/** The most history an execution of `steps` steps may have, from the retries the definition allows. */
export const worstHistory = (steps: number): number =>
  Math.max(WORST_MODEL_STEP, WORST_TOOL_STEP) * steps + EXECUTION;

const NOTES = 6;

/**
 * Crash a long run at `crashAt` through the CLI and resume it: every turn
 * writes a note (a side effect), three steps an execution, so the run hands
 * off before every tool batch. Resume must complete it, no note written twice.
 */
export async function crashAndResume(dir: string, crashAt: string): Promise<void> {
  const env = { RUNLOG_STEPS_PER_EXECUTION: "3" };
  const turns = [
    ...Array.from({ length: NOTES }, (_, i) => ({
      toolCalls: [{ name: "write_note", arguments: { text: `note ${i}` } }],
    })),
    { text: "Done", stop: "stop" },
  ];
  const model = script(dir, "notes", turns);
  const crashed = await runlog(dir, ["run", "--run-id", "r", "--model", model, "go"], {
    ...env,
    RUNLOG_CRASH_AT: crashAt,
  });
  expect(crashed.code, crashed.stderr).toBe(137);
  const before = await events(dir, "r");

  const resumed = await runlogJson(dir, ["resume", "r"], env);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.json).toMatchObject({ runId: "r", status: "completed", output: "Done" });

  const after = await events(dir, "r");
  expect(after.map((e) => e.seq)).toEqual(after.map((_, i) => i + 1));
  expect(after.slice(0, before.length)).toEqual(before);
  const results = after.filter((e) => e.type === "tool_result");
  expect(results.map((e) => e.callId).sort()).toEqual(
    Array.from({ length: NOTES }, (_, i) => `call_${i}_0`).sort(),
  );
  // Each note once; one interrupted after its effect is answered as interrupted, never run again.
  const written = notes(dir);
  expect(new Set(written).size).toBe(written.length);
  const ran = results.filter((e) => !e.interrupted).map((e) => `note ${String(e.callId).split("_")[1]}`);
  for (const note of ran) expect(written).toContain(note);
  expect(written.length).toBeLessThanOrEqual(NOTES);

  const by = after.filter((e) => e.type === "resumed").map((e) => e.by);
  // A crash after the handoff's `resumed` was written leaves that generation opened and never
  // executed: the resume executes it, opening none of its own. Anywhere else the resume opens one.
  const opened = crashAt.startsWith("handoff:after-append") ? 0 : 1;
  expect(by.filter((who) => who === "person")).toHaveLength(opened);
  expect(by.filter((who) => who === "handoff").length).toBeGreaterThan(0);
  const point = await runlogJson(dir, ["resume-point", "r"]);
  expect(point.json).toMatchObject({ resumable: false, reason: "completed" });
}
