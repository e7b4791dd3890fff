import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { type Classification, classify } from "../../lib/core/classify.ts";
import { decodeEvent } from "../../lib/core/decodeEvent.ts";
import type { NewEvent, RunEvent } from "../../lib/core/events.ts";
import { readLog } from "../../lib/core/logReader.ts";
import { toMessages } from "../../lib/core/messageBuilder.ts";
import { restingStatus } from "../../lib/core/status.ts";
import { anyLog, validLog } from "../core/arbitraries.ts";
import { historyProblem } from "../core/history.ts";
import { LogBuilder } from "../core/logBuilder.ts";
import { type Expected, lifecycleLog } from "./support/lifecycleLog.ts";
import { tally } from "./support/tally.ts";

/**
 * The classifier and the reducer on logs with the lifecycle events (approvals,
 * decisions, sends, markers, cancels): on correct logs they agree with an
 * oracle built from the rows of the resume table (docs/concepts/resume-table.md) at every
 * prefix; on any log they never throw and say something a caller can act on.
 */
const RUNS = 1_000;
const SETTINGS = { seed: 20260602, numRuns: RUNS };
let properties = 0;
let prefixes = 0;
afterAll(() => tally("properties", { properties, runsEach: RUNS, lifecyclePrefixesChecked: prefixes }));

const stamped = (events: readonly NewEvent[]) => {
  const builder = new LogBuilder();
  for (const event of events) builder.add(event);
  return builder.build();
};
const ids = (calls: { id: string }[]) => calls.map((call) => call.id).sort();

/** The classification reduced to what the oracle predicts. */
function observed(c: Classification): Expected {
  if (c.resumable) {
    return {
      resumable: true,
      kind: c.kind,
      unanswered: ids(c.unansweredToolCalls),
      interrupted: ids(c.interruptedToolCalls),
    };
  }
  return c.reason === "awaiting_approval"
    ? { resumable: false, reason: c.reason, waiting: ids(c.waitingToolCalls ?? []) }
    : { resumable: false, reason: c.reason };
}
const sorted = (e: Expected): Expected =>
  e.resumable
    ? { ...e, unanswered: [...e.unanswered].sort(), interrupted: [...e.interrupted].sort() }
    : e.waiting
      ? { ...e, waiting: [...e.waiting].sort() }
      : e;

/** Random events of every type (new ones included) and near misses of correct lifecycle logs. */
const lifecycleEvent: fc.Arbitrary<NewEvent> = fc.oneof(
  fc
    .record({ callId: fc.constantFrom("call_0_0", "call_0_1", "ghost"), approved: fc.boolean() })
    .map(({ callId, approved }): NewEvent => ({ type: "tool_decided", callId, approved, by: "ana" })),
  fc.constant<NewEvent>({ type: "cancelled", by: "ops" }),
  fc.integer({ min: 2, max: 5 }).map(
    (generation): NewEvent => ({
      type: "resumed",
      generation,
      kind: "call_model",
      description: "d",
      input: "more",
    }),
  ),
  fc.subarray(["call_0_0", "call_0_1", "ghost"]).map(
    (approvals): NewEvent => ({
      type: "model_response",
      text: "",
      toolCalls: [
        { id: "call_0_0", name: "echo", arguments: "{}" },
        { id: "call_0_1", name: "echo", arguments: "{}" },
      ],
      stop: "tool_calls",
      approvals,
    }),
  ),
);
const brokenLifecycle: fc.Arbitrary<RunEvent[]> = fc
  .record({
    log: lifecycleLog,
    extra: fc.array(lifecycleEvent, { maxLength: 3 }),
    at: fc.array(fc.nat(), { maxLength: 3 }),
    drop: fc.option(fc.nat()),
  })
  .map(({ log, extra, at, drop }) => {
    const events = [...log.events];
    if (drop !== null && events.length > 1) events.splice(1 + (drop % (events.length - 1)), 1);
    for (const [i, event] of extra.entries()) events.splice(1 + ((at[i] ?? 0) % events.length), 0, event);
    return stamped(events);
  });
const anyLifecycleLog = fc.oneof(
  anyLog,
  brokenLifecycle,
  lifecycleLog.map(({ events }) => stamped(events)),
);

describe("on a correct lifecycle log, at every prefix (a crash can stop it anywhere)", () => {
  it("classify agrees with the resume table", () => {
    fc.assert(
      fc.property(lifecycleLog, ({ events, expectations }) => {
        const log = stamped(events);
        expectations.forEach((expected, i) => {
          const prefix = log.slice(0, i + 1);
          expect(observed(classify(prefix)), JSON.stringify(prefix.map((e) => e.type))).toEqual(
            sorted(expected),
          );
          prefixes++;
        });
      }),
      SETTINGS,
    );
    properties++;
  });

  it("the history sent to the model is one a provider accepts, and every event survives a store round trip", () => {
    fc.assert(
      fc.property(lifecycleLog, ({ events }) => {
        const log = stamped(events);
        expect(historyProblem(toMessages(log))).toBeNull();
        for (const event of log)
          expect(decodeEvent(JSON.parse(JSON.stringify(event)))).toEqual({ ok: true, event });
        expect(readLog(log).generation).toBe(1 + log.filter((e) => e.type === "resumed").length);
      }),
      SETTINGS,
    );
    properties++;
  });
});

describe("on any log, lifecycle events included", () => {
  it("classify, toMessages and restingStatus never throw, and classify says something actionable", () => {
    fc.assert(
      fc.property(anyLifecycleLog, (log) => {
        const c = classify(log);
        expect(c.description.length).toBeGreaterThan(0);
        if (!c.resumable) {
          if (c.reason === "awaiting_approval") expect(c.waitingToolCalls?.length).toBeGreaterThan(0);
          if (c.reason === "malformed") expect(c.seq).toBeGreaterThanOrEqual(1);
          expect(c.reason === "empty").toBe(log.length === 0);
        } else {
          const unanswered = new Set(c.unansweredToolCalls.map((call) => call.id));
          for (const call of c.interruptedToolCalls) expect(unanswered.has(call.id)).toBe(true);
        }
        expect(historyProblem(toMessages(log))).toBeNull();
        expect(typeof restingStatus(log, c)).toBe("string");
      }),
      SETTINGS,
    );
    properties++;
  });

  it("a correct log without lifecycle events still never classifies as malformed", () => {
    fc.assert(
      fc.property(validLog, (log) => {
        const c = classify(log);
        expect(c.resumable || c.reason !== "malformed").toBe(true);
      }),
      SETTINGS,
    );
    properties++;
  });
});
