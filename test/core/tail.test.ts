import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classify } from "../../lib/core/classify.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { LogReader, readLog } from "../../lib/core/logReader.ts";
import { finalOutput } from "../../lib/core/messages.ts";
import { restingStatus } from "../../lib/core/status.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import { fromAnchor, isAnchor, tailBoundary } from "../../lib/core/tail.ts";
import { lifecycleLog } from "../reliability/support/lifecycleLog.ts";
import { anyLog, validLog } from "./arbitraries.ts";

const AT = new Date("2026-01-01T00:00:00Z");

/** What a store's readBack(runId, tailBoundary()) returns for this log: oldest first. */
function readBack(events: readonly RunEvent[]): RunEvent[] {
  const stop = tailBoundary();
  const newestFirst: RunEvent[] = [];
  for (let i = events.length - 1; i >= 0; i--) {
    newestFirst.push(events[i]!);
    if (stop(events[i]!)) break;
  }
  return newestFirst.reverse();
}

/** Everything a tail reader answers, from the tail, next to the same from the whole log. */
function answers(events: readonly RunEvent[]) {
  const read = readBack(events);
  const tail = read[0]?.seq === 1 ? { events: read, start: undefined } : fromAnchor(read);
  const fromTail = {
    classification: classify(tail.events, tail.start),
    generation: readLog(tail.events, tail.start).generation,
    status: restingStatus(tail.events, classify(tail.events, tail.start), tail.start),
    output: finalOutput(tail.events),
  };
  const whole = {
    classification: classify(events),
    generation: readLog(events).generation,
    status: restingStatus(events, classify(events)),
    output: finalOutput(events),
  };
  return { fromTail, whole, read: read.length };
}

describe("a log's tail says what the whole log says", () => {
  it("for every prefix of correct logs (with tool batches, approvals, sends, resumes and cancels)", () => {
    let prefixes = 0;
    fc.assert(
      fc.property(lifecycleLog, ({ events }) => {
        const log = events.map((event, i) => stamp(event, i + 1, AT));
        for (let n = 1; n <= log.length; n++) {
          const { fromTail, whole } = answers(log.slice(0, n));
          expect(fromTail).toEqual(whole);
          prefixes++;
        }
      }),
      { seed: 7, numRuns: 300 },
    );
    expect(prefixes).toBeGreaterThan(1_000);
  });

  it("for correct logs cut off anywhere", () => {
    fc.assert(
      fc.property(validLog, (log) => {
        const { fromTail, whole } = answers(log);
        expect(fromTail).toEqual(whole);
      }),
      { seed: 11, numRuns: 500 },
    );
  });

  /** A 3,000-turn run (over 9,000 events) with a handoff every 500 turns, as steps write it. */
  function longRun(withGen: boolean): RunEvent[] {
    const events: RunEvent[] = [];
    let generation = 1;
    const add = (event: Parameters<typeof stamp>[0]) => {
      if (event.type === "resumed") generation = event.generation;
      events.push(stamp(event, events.length + 1, AT, withGen ? generation : undefined));
    };
    add({ type: "run_started", runId: "r", agent: "demo", model: "scripted:demo", input: "go" });
    for (let turn = 0; turn < 3_000; turn++) {
      if (turn % 500 === 499) {
        add({ type: "resumed", generation: generation + 1, kind: "call_model", description: "d" });
      }
      const id = `c${turn}`;
      add({
        type: "model_response",
        text: "",
        toolCalls: [{ id, name: "t", arguments: "{}" }],
        stop: "tool_calls",
      });
      add({ type: "tool_started", callId: id, name: "t" });
      add({ type: "tool_result", callId: id, name: "t", content: "x", isError: false });
    }
    return events;
  }

  it("reads back only to the last anchor, which records its generation, however long the log", () => {
    const events = longRun(true);
    const { fromTail, whole, read } = answers(events);
    expect(fromTail).toEqual(whole);
    expect(whole.generation).toBe(7);
    expect(events.length).toBeGreaterThan(9_000);
    expect(read).toBe(3); // the last response and its call's two events
  });

  it("reads logs written before `gen` back to the resumed event before the last anchor", () => {
    const events = longRun(false);
    const { fromTail, whole, read } = answers(events);
    expect(fromTail).toEqual(whole);
    expect(whole.generation).toBe(7);
    expect(read).toBeLessThan(1_600);
  });

  /** A run whose answer hit the output limit twice, continued by resumes (one after a failed call). */
  function continuedRun(withGen: boolean, last: "stop" | "rejected"): RunEvent[] {
    const events: RunEvent[] = [];
    let generation = 1;
    const add = (event: Parameters<typeof stamp>[0]) => {
      if (event.type === "resumed") generation = event.generation;
      events.push(stamp(event, events.length + 1, AT, withGen ? generation : undefined));
    };
    const resume = (kind: "call_model" | "continue_response") =>
      add({ type: "resumed", generation: generation + 1, kind, description: "d" });
    add({ type: "run_started", runId: "r", agent: "demo", model: "scripted:demo", input: "go" });
    for (let turn = 0; turn < 50; turn++) {
      add({ type: "model_response", text: `turn ${turn}`, toolCalls: [], stop: "stop" });
      add({ type: "user_message", text: "more" });
    }
    add({ type: "model_response", text: "The answer is lo", toolCalls: [], stop: "max_output" });
    resume("continue_response");
    add({
      type: "model_failed",
      error: { name: "ModelUnavailableError", message: "reset" },
      retryable: true,
    });
    resume("call_model");
    add({ type: "response_progress", text: "ng a" });
    add({ type: "model_response", text: "ng and ", toolCalls: [], stop: "max_output" });
    resume("continue_response");
    if (last === "stop") add({ type: "model_response", text: "complete.", toolCalls: [], stop: "stop" });
    else add({ type: "output_rejected", text: "complete.", problems: "not JSON", attempt: 1, retry: false });
    return events;
  }

  // Before `gen`, a tail goes back to the `resumed` before its oldest event: here, the run's start.
  it.each([
    [true, 10],
    [false, 200],
  ])("reads an answer back to the oldest response it continues (gen recorded: %s)", (withGen, most) => {
    const events = continuedRun(withGen, "stop");
    const { fromTail, whole, read } = answers(events);
    expect(fromTail).toEqual(whole);
    expect(whole.output).toBe("The answer is long and complete.");
    // The cut responses, what came between, and the message before them.
    expect(read).toBeLessThan(most);
    const rejected = continuedRun(withGen, "rejected");
    expect(answers(rejected).fromTail).toEqual(answers(rejected).whole);
  });

  it("finds a generation that disagrees with the log malformed, naming the seq", () => {
    const events = longRun(true);
    const last = events.at(-1)!;
    events[events.length - 1] = { ...last, gen: 3 };
    expect(classify(events)).toMatchObject({ resumable: false, reason: "malformed", seq: last.seq });
  });

  it("anchors on messages and answers, not on tool events or markers", () => {
    const anchors = ["run_started", "user_message", "model_response", "model_failed"];
    const tail = fromAnchor([]);
    expect(tail.events).toEqual([]);
    for (const type of anchors) expect(isAnchor({ type } as RunEvent)).toBe(true);
    for (const type of ["tool_started", "tool_result", "tool_decided", "cancelled"]) {
      expect(isAnchor({ type } as RunEvent)).toBe(false);
    }
    expect(isAnchor({ type: "resumed" } as RunEvent)).toBe(false);
    expect(isAnchor({ type: "resumed", input: "more" } as RunEvent)).toBe(true);
  });
});

describe("LogReader, readLog one event at a time", () => {
  it("says at every point what readLog says of the events so far, and its earlier facts stay as they were", () => {
    fc.assert(
      fc.property(lifecycleLog, ({ events }) => {
        const log = events.map((event, i) => stamp(event, i + 1, AT));
        const reader = new LogReader();
        const taken: { n: number; facts: ReturnType<typeof readLog> }[] = [];
        for (let n = 1; n <= log.length; n++) {
          reader.read(log[n - 1]!);
          const facts = reader.facts();
          expect(facts).toEqual(readLog(log.slice(0, n)));
          taken.push({ n, facts });
        }
        for (const { n, facts } of taken) expect(facts).toEqual(readLog(log.slice(0, n)));
      }),
      { seed: 13, numRuns: 200 },
    );
  });

  it("stops at the first problem, as readLog does", () => {
    fc.assert(
      fc.property(anyLog, (log) => {
        const reader = new LogReader();
        for (const event of log) reader.read(event);
        expect(reader.facts()).toEqual(readLog(log));
      }),
      { seed: 17, numRuns: 500 },
    );
  });
});
