import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { type LocalOptions, openLocal } from "../../lib/api/local.ts";
import { replayRuns } from "../../lib/api/replay.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { agentAsTool, defineAgent, defineTool } from "../../lib/index.ts";
import type { Tool } from "../../lib/ports/tool.ts";
import { tempDataDir } from "../support/cli.ts";

/**
 * replayRuns compares how each call ended, not only which calls were made (a tool gone from the
 * agent fails every call while the model says the same), and says why the recording cannot answer
 * a call it has with no result: one waiting for a decision when the run paused, one cut off.
 */
let dir: string;
const spec = (name: string, turns: unknown[]) => {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ turns }));
  return `scripted:${path}`;
};

const lookup = defineTool({
  name: "lookup",
  description: "Look a thing up.",
  parameters: z.object({ id: z.string() }),
  run: ({ id }) => ({ id, found: true }),
});
const echo = defineTool({
  name: "echo",
  description: "Echo text back.",
  parameters: z.object({ text: z.string() }),
  run: ({ text }) => text,
});
const refund = defineTool({
  name: "refund",
  description: "Refund money.",
  parameters: z.object({ amount: z.number() }),
  needsApproval: ({ amount }) => amount > 20,
  run: ({ amount }) => `refunded ${amount}`,
});
const helper = (tools: readonly Tool[]) => ({
  helper: defineAgent({ name: "helper", instructions: "You help.", model: "scripted:demo", tools }),
});
const FULL = helper([lookup, echo, refund]);

const LOOKUP = [{ toolCalls: [{ name: "lookup", arguments: { id: "x1" } }] }, { text: "First answer." }];
const REFUND = [{ toolCalls: [{ name: "refund", arguments: { amount: 50 } }] }];

async function withLocal<T>(
  agents: NonNullable<LocalOptions["agents"]>,
  use: (local: Awaited<ReturnType<typeof openLocal>>) => Promise<T>,
) {
  const local = await openLocal({ dataDir: dir, agents });
  try {
    return await use(local);
  } finally {
    await local.close();
  }
}
const toolResults = (events: RunEvent[]) => events.flatMap((e) => (e.type === "tool_result" ? [e] : []));

beforeAll(async () => {
  dir = tempDataDir("replay-outcomes");
  await withLocal(FULL, async ({ runlog }) => {
    await runlog.start({ agent: "helper", input: "Q1", model: spec("lookup", LOOKUP), runId: "t1" });
    expect(
      await runlog.start({ agent: "helper", input: "Refund me", model: spec("refund", REFUND), runId: "p1" }),
    ).toMatchObject({ status: "paused" });
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a replay whose calls end otherwise than recorded", () => {
  it.each([
    ["gone", helper([echo]), "unknown tool lookup; available: echo"],
    [
      "renamed",
      helper([echo, { ...lookup, name: "lookup2" }]),
      "unknown tool lookup; available: echo, lookup2",
    ],
  ])(
    "is changed when the agent's tool is %s, the calls named with their errors",
    async (_, agents, error) => {
      const report = await replayRuns({
        dataDir: dir,
        agents,
        runIds: ["t1"],
        model: spec("lookup", LOOKUP),
      });
      expect(report.changed).toBe(1);
      expect(report.runs[0]!.differences).toEqual([
        {
          what: "tool_call_outcome",
          recorded: { name: "lookup", arguments: '{"id":"x1"}', outcome: "result" },
          replayed: { name: "lookup", arguments: '{"id":"x1"}', outcome: "error", error },
        },
      ]);
    },
  );

  it("is unchanged when a recorded error is given back as recorded: a person's rejection", async () => {
    const model = spec("rejected", [...REFUND, { text: "No refund then." }]);
    const recorded = await withLocal(FULL, async ({ runlog }) => {
      await runlog.start({ agent: "helper", input: "Refund me", model, runId: "r1" });
      // The scripted model's id for the first call of turn 1.
      await runlog.reject("r1", "call_0_0", { by: "alice", reason: "too much" });
      return runlog.events("r1");
    });
    const report = await replayRuns({ dataDir: dir, agents: FULL, runIds: ["r1"], model });
    expect(report.runs[0]).toMatchObject({ changed: false, differences: [] });
    const replayed = await withLocal(FULL, ({ runlog }) => runlog.events(report.runs[0]!.replayRunId));
    // Its text as it was, not worded again as the tool's own failure ("refund failed: …").
    expect(toolResults(replayed).map((r) => [r.content, r.isError])).toEqual(
      toolResults(recorded).map((r) => [r.content, r.isError]),
    );
  });
});

describe("a recorded call with no result", () => {
  it("that was waiting for a decision is answered saying so, and named as ending otherwise", async () => {
    const report = await replayRuns({
      dataDir: dir,
      agents: FULL,
      runIds: ["p1"],
      model: spec("refund", REFUND),
    });
    const [run] = report.runs;
    const replayed = await withLocal(FULL, ({ runlog }) => runlog.events(run!.replayRunId));
    const [answer] = toolResults(replayed);
    expect(answer).toMatchObject({ name: "refund", isError: true });
    expect(answer!.content).toBe(
      'refund failed: the recording of run p1 has this call of refund ({"amount":50}) but no result to answer it with: it was waiting for a person\'s decision when the recording ended, and a replay asks nobody',
    );
    expect(run!.differences).toContainEqual({
      what: "tool_call_outcome",
      recorded: { name: "refund", arguments: '{"amount":50}', outcome: "waiting" },
      replayed: { name: "refund", arguments: '{"amount":50}', outcome: "error", error: answer!.content },
    });
    expect(run!.differences).toContainEqual({ what: "status", recorded: "paused", replayed: "failed" });
  });

  it("that was started and cut off is answered saying so", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const waiting = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const hold = defineTool({
      name: "hold",
      description: "Hold.",
      parameters: z.object({}),
      run: async () => {
        entered();
        await gate;
        return "held";
      },
    });
    const agents = helper([hold]);
    const model = spec("hold", [{ toolCalls: [{ name: "hold", arguments: {} }] }, { text: "done" }]);
    await withLocal(agents, async ({ runlog }) => {
      const running = runlog
        .start({ agent: "helper", input: "hold", model, runId: "cut" })
        .catch(() => undefined);
      await waiting;
      await runlog.cancel("cut", { by: "tester" });
      release();
      await running;
      expect((await runlog.events("cut")).map((e) => e.type)).not.toContain("tool_result");
    });
    const report = await replayRuns({ dataDir: dir, agents, runIds: ["cut"], model });
    const replayed = await withLocal(agents, ({ runlog }) => runlog.events(report.runs[0]!.replayRunId));
    expect(toolResults(replayed)[0]!.content).toBe(
      "hold failed: the recording of run cut has this call of hold ({}) but no result to answer it with: it was started and never finished (its run was cut off, or went on without it)",
    );
    expect(report.runs[0]!.differences).toContainEqual(
      expect.objectContaining({
        what: "tool_call_outcome",
        recorded: { name: "hold", arguments: "{}", outcome: "unfinished" },
      }),
    );
  });
});

describe("a recorded sub-agent call", () => {
  it("is answered from the recording: no child run, none of its tools run; registered by name too, still one agent", async () => {
    let noted = 0;
    const note = defineTool({
      name: "note",
      description: "Note (a side effect).",
      parameters: z.object({ text: z.string() }),
      run: ({ text }) => {
        noted++;
        return `noted ${text}`;
      },
    });
    const childModel = spec("child", [
      { toolCalls: [{ name: "note", arguments: { text: "a" } }] },
      { text: "child done" },
    ]);
    const child = defineAgent({ name: "child", instructions: "Note.", model: childModel, tools: [note] });
    const parentModel = spec("parent", [
      { toolCalls: [{ name: "ask_child", arguments: { input: "go" } }] },
      { text: "parent done" },
    ]);
    const parent = defineAgent({
      name: "parent",
      instructions: "Ask.",
      model: parentModel,
      tools: [agentAsTool(child, { name: "ask_child", description: "Asks the child." })],
    });
    for (const [runId, agents] of [
      ["sub", { parent }],
      ["sub-named", { parent, child }],
    ] as const) {
      await withLocal(agents, async ({ runlog }) => {
        expect(await runlog.start({ agent: "parent", input: "hi", runId })).toMatchObject({
          status: "completed",
        });
      });
      expect(noted).toBe(1);
      noted = 0;
      const report = await replayRuns({ dataDir: dir, agents, runIds: [runId], model: parentModel });
      expect(report.runs[0], runId).toMatchObject({ changed: false, differences: [] });
      expect(noted).toBe(0);
      const runs = await withLocal(agents, async ({ runlog }) => (await runlog.list({})).runs);
      const replayRunId = report.runs[0]!.replayRunId;
      expect(runs.filter((r) => r.runId.startsWith(`${replayRunId}.`)).map((r) => r.runId)).toEqual([]);
    }
  });
});
