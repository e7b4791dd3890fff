import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { DEFAULT_MAX_TURNS, type Limits } from "../../lib/core/budget.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { defineAgent, defineTool, InvalidInputError, type PriceTable } from "../../lib/index.ts";
import { createTestRunlog, type ScriptTurn, type TestRunlog } from "../../lib/testing/index.ts";
import { tempDataDir } from "../support/cli.ts";

/** An agent whose model asks for the same tool every turn: a runaway loop. */
const looper = (limits?: Limits) =>
  defineAgent({
    name: "looper",
    instructions: "Check again.",
    model: "scripted:unused",
    tools: [
      defineTool({
        name: "check",
        description: "Check once more.",
        parameters: z.object({}),
        run: () => "not yet",
      }),
    ],
    ...(limits === undefined ? {} : { limits }),
  });

const loopTurn = (usage?: ScriptTurn["usage"]): ScriptTurn => ({
  toolCalls: [{ name: "check", arguments: {} }],
  ...(usage === undefined ? {} : { usage }),
});
/** `n` looping turns, then a final answer. */
const looping = (n: number, usage?: ScriptTurn["usage"]): ScriptTurn[] => [
  ...Array.from({ length: n }, () => loopTurn(usage)),
  { text: "done at last", ...(usage === undefined ? {} : { usage }) },
];

let opened: TestRunlog | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

async function open(
  limits: Limits | undefined,
  script: ScriptTurn[],
  prices?: PriceTable,
  dataDir?: string,
): Promise<TestRunlog> {
  opened = await createTestRunlog({
    agents: { looper: looper(limits) },
    script,
    ...(prices === undefined ? {} : { prices }),
    ...(dataDir === undefined ? {} : { dataDir }),
  });
  return opened;
}

const responses = (events: RunEvent[]) => events.filter((event) => event.type === "model_response");
const last = (events: RunEvent[]) => events.at(-1)!;

describe("a run's budget", () => {
  it("stops a looping agent at maxTurns as budget_exhausted, with the figures in the log", async () => {
    const t = await open({ maxTurns: 3 }, looping(20, { inputTokens: 10, outputTokens: 5 }));
    const result = await t.runlog.start({ agent: "looper", input: "go" });
    expect(result.status).toBe("budget_exhausted");
    const events = await t.events(result.runId);
    expect(responses(events)).toHaveLength(3);
    expect(last(events)).toMatchObject({
      type: "budget_exhausted",
      limit: "maxTurns",
      used: { turns: 3, tokens: 45 },
      limits: { maxTurns: 3 },
    });
    // Every tool call of the last turn ran: the limit stops the next model call, not a batch.
    expect(events.at(-2)).toMatchObject({ type: "tool_result", content: "not yet" });
    // The resume point names it, with the figures.
    const point = await t.runlog.resumePoint(result.runId);
    expect(point).toMatchObject({ resumable: false, reason: "budget_exhausted", seq: events.length });
    expect(point.description).toContain("maxTurns limit of 3 (3 turns, 45 tokens)");
  });

  it("gives an agent that sets no limits the default maxTurns, which stops a runaway loop", async () => {
    const t = await open(undefined, looping(DEFAULT_MAX_TURNS + 5));
    const result = await t.runlog.start({ agent: "looper", input: "go" });
    expect(result.status).toBe("budget_exhausted");
    const events = await t.events(result.runId);
    expect(events[0]).toMatchObject({ type: "run_started", limits: { maxTurns: DEFAULT_MAX_TURNS } });
    expect(responses(events)).toHaveLength(DEFAULT_MAX_TURNS);
    expect(last(events)).toMatchObject({ limit: "maxTurns", used: { turns: DEFAULT_MAX_TURNS } });
  });

  it("stops at maxTokens, counting input and output tokens of every response", async () => {
    const t = await open({ maxTokens: 250 }, looping(20, { inputTokens: 70, outputTokens: 30 }));
    const result = await t.runlog.start({ agent: "looper", input: "go" });
    expect(result.status).toBe("budget_exhausted");
    const events = await t.events(result.runId);
    // 100 tokens a turn: the third turn crosses 250, and is the last.
    expect(responses(events)).toHaveLength(3);
    expect(last(events)).toMatchObject({ limit: "maxTokens", used: { turns: 3, tokens: 300 } });
  });

  it("stops at maxCostUsd, priced by the price table given to the runlog", async () => {
    // $1 per million input tokens, $2 per million output: 1,000 in and 500 out cost $0.002 a turn.
    const dataDir = tempDataDir("budget-cost");
    const spec = `scripted:${join(dataDir, "script.json")}`;
    const prices = { [spec]: { inputUsdPerMillion: 1, outputUsdPerMillion: 2 } };
    const priced = await open({}, looping(20, { inputTokens: 1000, outputTokens: 500 }), prices, dataDir);
    expect(priced.model).toBe(spec);
    const result = await priced.runlog.start({ agent: "looper", input: "go", limits: { maxCostUsd: 0.005 } });
    expect(result.status).toBe("budget_exhausted");
    const events = await priced.events(result.runId);
    expect(responses(events)).toHaveLength(3);
    const stop = last(events);
    expect(stop).toMatchObject({
      type: "budget_exhausted",
      limit: "maxCostUsd",
      limits: { maxCostUsd: 0.005 },
    });
    expect(stop.type === "budget_exhausted" && stop.used.costUsd).toBeCloseTo(0.006, 9);
  });

  it.each([
    [{ maxTokens: 500 }, "maxTokens 500"],
    [{ maxCostUsd: 0.5 }, "maxCostUsd 0.5"],
  ] as const)(
    "fails a response that reports no usage under %j, naming the model and the limit, instead of not counting it",
    async (limits, named) => {
      const dataDir = tempDataDir("budget-no-usage");
      const spec = `scripted:${join(dataDir, "script.json")}`;
      const prices = { [spec]: { inputUsdPerMillion: 1, outputUsdPerMillion: 2 } };
      const t = await open(limits, looping(8), prices, dataDir);
      const result = await t.runlog.start({ agent: "looper", input: "go" });
      expect(result.status).toBe("failed");
      const events = await t.events(result.runId);
      // Nothing of the uncounted response was taken as the run's: the log ends at its input.
      expect(events.map((e) => e.type)).toEqual(["run_started", "model_failed"]);
      expect(last(events)).toMatchObject({
        type: "model_failed",
        retryable: false,
        error: {
          name: "ModelRejectedError",
          message: expect.stringMatching(
            new RegExp(`${spec} reported no token usage.*${named} limit cannot be counted`),
          ),
        },
      });
    },
  );

  it("needs no usage under a turn limit alone", async () => {
    const t = await open({ maxTurns: 2 }, looping(5));
    const result = await t.runlog.start({ agent: "looper", input: "go" });
    expect(result.status).toBe("budget_exhausted");
    expect(responses(await t.events(result.runId))).toHaveLength(2);
  });

  it("refuses a cost limit on a model with no price at start, naming the model, and writes nothing", async () => {
    const t = await open({ maxCostUsd: 1 }, looping(2));
    const start = t.runlog.start({ agent: "looper", input: "go", runId: "unpriced" });
    await expect(start).rejects.toBeInstanceOf(InvalidInputError);
    await expect(start).rejects.toMatchObject({ field: "model", message: expect.stringContaining(t.model!) });
    expect((await t.runlog.list()).runs).toEqual([]);
  });

  it("refuses a start that asks for more than the agent allows, naming the field", async () => {
    const t = await open({ maxTurns: 5, maxTokens: 1000 }, looping(2, { inputTokens: 1, outputTokens: 1 }));
    for (const [limits, field] of [
      [{ maxTurns: 6 }, "limits.maxTurns"],
      [{ maxTokens: 1001 }, "limits.maxTokens"],
      [{ maxTurns: 0 }, "limits.maxTurns"],
      [{ maxTurns: 2.5 }, "limits.maxTurns"],
      [{ maxTurn: 2 }, "limits.maxTurn"],
    ] as const) {
      const start = t.runlog.start({ agent: "looper", input: "go", limits: limits as Limits });
      await expect(start).rejects.toMatchObject({ name: "InvalidInputError", field });
    }
    expect((await t.runlog.list()).runs).toEqual([]);
    // Lower is the caller's to choose, and a limit the agent leaves open may be set.
    const lower = await t.runlog.start({
      agent: "looper",
      input: "go",
      limits: { maxTurns: 1, maxCostUsd: undefined as never },
    });
    expect(lower.status).toBe("budget_exhausted");
    const events = await t.events(lower.runId);
    expect(events[0]).toMatchObject({ limits: { maxTurns: 1, maxTokens: 1000 } });
    expect(responses(events)).toHaveLength(1);
  });

  it("refuses limits in a defineAgent that cannot work, naming the limit", () => {
    expect(() => looper({ maxTokens: -1 })).toThrow(
      expect.objectContaining({ name: "InvalidInputError", field: "limits.maxTokens" }),
    );
  });

  it("continues when a person resumes with a raised limit, which a later resume sees in the log", async () => {
    const t = await open({ maxTurns: 2 }, looping(6));
    const { runId } = await t.runlog.start({ agent: "looper", input: "go" });
    expect((await t.runlog.outcome(runId)).status).toBe("budget_exhausted");

    // A plain resume does not go on: the limit is what stopped it.
    const plain = await t.runlog.resume({ runId });
    expect(plain.resume).toMatchObject({
      resumed: false,
      classification: { reason: "budget_exhausted" },
    });
    // Not raised above what was used: refused, naming the limit, nothing written.
    const before = (await t.events(runId)).length;
    await expect(t.runlog.resume({ runId, limits: { maxTurns: 2 } })).rejects.toMatchObject({
      name: "InvalidInputError",
      field: "limits.maxTurns",
    });
    expect(await t.events(runId)).toHaveLength(before);

    const raised = await t.runlog.resume({ runId, limits: { maxTurns: 4 } });
    expect(raised).toMatchObject({
      status: "budget_exhausted",
      resume: { resumed: true, kind: "call_model" },
    });
    let events = await t.events(runId);
    expect(events.find((e) => e.type === "resumed")).toMatchObject({ limits: { maxTurns: 4 }, by: "person" });
    expect(responses(events)).toHaveLength(4);
    expect(last(events)).toMatchObject({ limit: "maxTurns", used: { turns: 4 }, limits: { maxTurns: 4 } });

    // The raise is in the log: a resume asking for 4 again is refused as not above the 4 used.
    await expect(t.runlog.resume({ runId, limits: { maxTurns: 4 } })).rejects.toMatchObject({
      field: "limits.maxTurns",
    });
    // Above what the agent allows is a person's decision on resume, recorded with the resume.
    const done = await t.runlog.resume({ runId, limits: { maxTurns: 50 } });
    expect(done).toMatchObject({ status: "completed", output: "done at last" });
    events = await t.events(runId);
    expect(responses(events)).toHaveLength(7);
  });

  it("stops a run that was sent a message past its limit again at once", async () => {
    const t = await open({ maxTurns: 1 }, looping(4));
    const { runId } = await t.runlog.start({ agent: "looper", input: "go" });
    const outcome = await t.runlog.send(runId, "try once more");
    expect(outcome.status).toBe("budget_exhausted");
    const events = await t.events(runId);
    expect(responses(events)).toHaveLength(1);
    expect(events.slice(-2).map((e) => e.type)).toEqual(["resumed", "budget_exhausted"]);
  });

  it("is left alone by the sweeper and by redrive", async () => {
    const t = await open({ maxTurns: 1 }, looping(4));
    const { runId } = await t.runlog.start({ agent: "looper", input: "go" });
    const before = await t.events(runId);
    const swept = await t.runlog.sweep();
    const redriven = await t.runlog.redrive();
    expect(swept.resumed ?? []).not.toContain(runId);
    expect(JSON.stringify(redriven)).not.toContain(runId);
    expect(await t.events(runId)).toEqual(before);
    expect((await t.runlog.outcome(runId)).status).toBe("budget_exhausted");
  });

  it("may be cancelled while it waits for a raised limit, and is then cancelled for good", async () => {
    const t = await open({ maxTurns: 1 }, looping(4));
    const { runId } = await t.runlog.start({ agent: "looper", input: "go" });
    const cancelled = await t.runlog.cancel(runId, { by: "ana", reason: "too expensive" });
    expect(cancelled.status).toBe("cancelled");
    await expect(t.runlog.resume({ runId, limits: { maxTurns: 5 } })).resolves.toMatchObject({
      status: "cancelled",
      resume: { resumed: false, classification: { reason: "cancelled" } },
    });
  });
});
