import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  checkLimits,
  checkPrices,
  DEFAULT_MAX_TURNS,
  exhausted,
  limitsInForce,
  startLimits,
} from "../../lib/core/budget.ts";
import { classify } from "../../lib/core/classify.ts";
import { decodeEvent } from "../../lib/core/decodeEvent.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import type { LogView } from "../../lib/core/log.ts";
import { readLog } from "../../lib/core/logReader.ts";
import { RUN_STATUSES, restingStatus } from "../../lib/core/status.ts";
import { fromAnchor, tailBoundary } from "../../lib/core/tail.ts";

const V1 = new URL("../fixtures/events/v1/", import.meta.url);
const fixture = (file: string): RunEvent[] =>
  (JSON.parse(readFileSync(new URL(file, V1), "utf8")) as unknown[]).map((record) => {
    const decoded = decodeEvent(record);
    if (!decoded.ok) throw new Error(`${file}: ${decoded.problem}`);
    return decoded.event;
  });

/** The tail a resume reads: backwards from the end to the last anchor (as readTail does). */
function tailOf(events: RunEvent[]): LogView {
  const boundary = tailBoundary();
  const back: RunEvent[] = [];
  for (const event of [...events].reverse()) {
    back.unshift(event);
    if (boundary(event)) break;
  }
  return back[0]!.seq === 1 ? { events: back } : fromAnchor(back);
}

const PRICES = { "openai:gpt-4.1-mini": { inputUsdPerMillion: 0.4, outputUsdPerMillion: 1.6 } };

describe("budget_exhausted in the log", () => {
  const log = fixture("budget-exhausted.json");
  const stopped = log.slice(0, 5);

  it("is a resume point that names it, from the whole log and from the tail a resume reads", () => {
    const whole = classify(stopped);
    expect(whole).toMatchObject({ resumable: false, reason: "budget_exhausted", seq: 5 });
    const tail = tailOf(stopped);
    expect(tail.events.length).toBeLessThan(stopped.length);
    expect(classify(tail.events, tail.start)).toEqual(whole);
    expect(restingStatus(stopped, whole)).toBe("budget_exhausted");
    expect(RUN_STATUSES).toContain("budget_exhausted");
  });

  it("gives way to a resume that raised a limit, whose limits the facts then hold", () => {
    expect(classify(log)).toMatchObject({ resumable: true, kind: "call_model" });
    const facts = readLog(log);
    expect(facts.exhausted).toBeUndefined();
    expect(facts.limits).toEqual({ maxTurns: 3, maxCostUsd: 0.5 });
    expect(facts.used).toMatchObject({ turns: 1, inputTokens: 1200, outputTokens: 40 });
    expect(exhausted(limitsInForce(facts.limits, { maxTurns: 1 }), facts.used, PRICES)).toBeUndefined();
  });

  it.each(["completed-demo.json", "crashed-tool-batch.json", "recovered-and-continued.json"])(
    "a log written before budgets (%s) reads as before, under its agent's limits",
    (file) => {
      const events = fixture(file);
      const facts = readLog(events);
      expect(events[0]).not.toHaveProperty("limits");
      expect(facts.limits).toBeUndefined();
      expect(facts.exhausted).toBeUndefined();
      expect(classify(events)).not.toMatchObject({ reason: "budget_exhausted" });
      expect(limitsInForce(facts.limits, undefined)).toEqual({ maxTurns: DEFAULT_MAX_TURNS });
      expect(limitsInForce(facts.limits, { maxTurns: 1 })).toEqual({ maxTurns: 1 });
    },
  );
});

describe("counting a budget", () => {
  const used = (turns: number, input: number, output: number, spec = "openai:gpt-4.1-mini") => ({
    turns,
    inputTokens: input,
    outputTokens: output,
    byModel: new Map([[spec, { inputTokens: input, outputTokens: output }]]),
  });

  it.each([
    [{ maxTurns: 3 }, used(2, 10, 10), undefined],
    [{ maxTurns: 3 }, used(3, 10, 10), "maxTurns"],
    [{ maxTokens: 100 }, used(1, 60, 39), undefined],
    [{ maxTokens: 100 }, used(1, 60, 40), "maxTokens"],
    // 1M input at $0.40 and 1M output at $1.60: $2.
    [{ maxCostUsd: 2.01 }, used(1, 1_000_000, 1_000_000), undefined],
    [{ maxCostUsd: 2 }, used(1, 1_000_000, 1_000_000), "maxCostUsd"],
    // A model the table does not price costs nothing it could count.
    [{ maxCostUsd: 1 }, used(1, 1_000_000, 1_000_000, "mine:x"), undefined],
  ])("limits %j with %o used: reached %s", (limits, counted, limit) => {
    expect(exhausted(limits, counted, PRICES)?.limit).toBe(limit);
  });

  it("records the figures at the limit, the cost only where a price is known", () => {
    expect(exhausted({ maxTurns: 1 }, used(1, 1000, 500), PRICES)).toEqual({
      limit: "maxTurns",
      used: { turns: 1, tokens: 1500, costUsd: (1000 * 0.4 + 500 * 1.6) / 1e6 },
      limits: { maxTurns: 1 },
    });
    expect(exhausted({ maxTurns: 1 }, used(1, 1000, 500), undefined)?.used).toEqual({
      turns: 1,
      tokens: 1500,
    });
  });
});

describe("checking limits and prices", () => {
  it.each([
    [{ maxTurns: 0 }, "limits.maxTurns"],
    [{ maxTurns: 1.5 }, "limits.maxTurns"],
    [{ maxTokens: "10" }, "limits.maxTokens"],
    [{ maxCostUsd: 0 }, "limits.maxCostUsd"],
    [{ maxSteps: 3 }, "limits.maxSteps"],
    [[], "limits"],
    [null, "limits"],
  ])("refuses %j naming %s", (limits, field) => {
    expect(() => checkLimits(limits)).toThrow(expect.objectContaining({ name: "InvalidInputError", field }));
  });

  it("lowers the agent's limits, never raises them", () => {
    expect(startLimits({ maxTurns: 10 }, { maxTurns: 4, maxTokens: 500 })).toEqual({
      maxTurns: 4,
      maxTokens: 500,
    });
    expect(() => startLimits({ maxTurns: 10, maxCostUsd: 1 }, { maxCostUsd: 1.5 })).toThrow(
      expect.objectContaining({ field: "limits.maxCostUsd" }),
    );
  });

  it("refuses a price table entry that is not a price, naming it", () => {
    expect(() => checkPrices({ "openai:x": { inputUsdPerMillion: 1 } })).toThrow(
      expect.objectContaining({ field: 'prices["openai:x"].outputUsdPerMillion' }),
    );
    expect(checkPrices(PRICES)).toBe(PRICES);
  });
});
