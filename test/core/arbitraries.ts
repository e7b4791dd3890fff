import fc from "fast-check";
import { KNOWN_STOPS } from "../../lib/core/eventFields.ts";
import type { NewEvent, RunEvent } from "../../lib/core/events.ts";
import { call, LogBuilder } from "./logBuilder.ts";

const POOL = ["a", "b", "c"];
const STARTED: NewEvent = { type: "run_started", runId: "r", agent: "demo", model: "m", input: "go" };
const FAILED: NewEvent = { type: "model_failed", error: { name: "E", message: "down" }, retryable: true };

const anyCallId = fc.constantFrom(...POOL, "ghost");
const anyStop = fc.constantFrom<string>(...KNOWN_STOPS, "content_filter");
// Ids are unique within one response (as providers give them) but reused across responses.
const anyCalls = fc.shuffledSubarray(POOL, { minLength: 0, maxLength: 3 });

const stamped = (events: readonly NewEvent[]): RunEvent[] => {
  const builder = new LogBuilder();
  for (const event of events) builder.add(event);
  return builder.build();
};

/** Any one event, with call ids from a small pool so that some of them match. */
const anyEvent: fc.Arbitrary<NewEvent> = fc.oneof(
  fc.constant(STARTED),
  fc.constant<NewEvent>({ type: "user_message", text: "more" }),
  fc.record({ text: fc.constantFrom("", "text"), ids: anyCalls, stop: anyStop }).map(
    ({ text, ids, stop }): NewEvent => ({
      type: "model_response",
      text,
      toolCalls: ids.map((id) => call(id)),
      stop,
    }),
  ),
  fc.constant(FAILED),
  anyCallId.map((callId): NewEvent => ({ type: "tool_started", callId, name: "echo" })),
  fc.record({ callId: anyCallId, isError: fc.boolean() }).map(
    ({ callId, isError }): NewEvent => ({
      type: "tool_result",
      callId,
      name: "echo",
      content: "x",
      isError,
    }),
  ),
  anyCallId.map(
    (callId): NewEvent => ({ type: "transferred", callId, name: "transfer_to_b", from: "a", to: "b" }),
  ),
  fc
    .integer({ min: 2, max: 4 })
    .map((generation): NewEvent => ({ type: "resumed", generation, kind: "call_model", description: "d" })),
);

/** One model turn of a correct run: failures, then a response and what followed it. */
const anyTurn = fc.oneof(
  fc.record({
    failures: fc.nat({ max: 2 }),
    // Each call appears twice: its first occurrence is its tool_started, its second its result.
    order: fc.integer({ min: 1, max: 3 }).chain((n) => {
      const tokens = [...Array(n).keys(), ...Array(n).keys()];
      return fc.shuffledSubarray(tokens, { minLength: tokens.length, maxLength: tokens.length });
    }),
    // Call 0 transfers to another agent: it writes nothing first, then `transferred` as its answer.
    transfer: fc.boolean(),
  }),
  fc.record({
    failures: fc.nat({ max: 2 }),
    stop: anyStop.filter((stop) => stop !== "tool_calls"),
    followUp: fc.boolean(),
  }),
);

/** The unstamped events of a correct run, crashed at a random point, with resume markers anywhere after the start. */
const validEvents: fc.Arbitrary<NewEvent[]> = fc
  .record({
    turns: fc.array(anyTurn, { maxLength: 6 }),
    markers: fc.array(fc.nat(), { maxLength: 3 }),
    cut: fc.nat(),
  })
  .map(({ turns, markers, cut }) => {
    const events: NewEvent[] = [STARTED];
    turns.forEach((turn, t) => {
      for (let f = 0; f < turn.failures; f++) events.push(FAILED);
      if ("order" in turn) {
        const ids = [...new Set(turn.order)].sort().map((i) => `call_${t}_${i}`);
        const transferId = turn.transfer ? `call_${t}_0` : undefined;
        events.push({
          type: "model_response",
          text: "",
          toolCalls: ids.map((id) => (id === transferId ? call(id, "transfer_to_b") : call(id))),
          stop: "tool_calls",
        });
        const seen = new Set<number>();
        for (const i of turn.order) {
          const callId = `call_${t}_${i}`;
          if (callId === transferId) {
            if (seen.has(i))
              events.push({ type: "transferred", callId, name: "transfer_to_b", from: "a", to: "b" });
          } else if (seen.has(i))
            events.push({ type: "tool_result", callId, name: "echo", content: "ok", isError: false });
          else events.push({ type: "tool_started", callId, name: "echo" });
          seen.add(i);
        }
      } else {
        events.push({ type: "model_response", text: "answer", toolCalls: [], stop: turn.stop });
        if (turn.followUp) events.push({ type: "user_message", text: "more" });
      }
    });
    const kept = events.slice(0, 1 + (cut % events.length));
    for (const at of markers) kept.splice(1 + (at % kept.length), 0, { type: "resumed" } as NewEvent);
    let generation = 1;
    return kept.map(
      (event): NewEvent =>
        event.type === "resumed"
          ? { type: "resumed", generation: ++generation, kind: "call_model", description: "d" }
          : event,
    );
  });

/** A correct run cut off anywhere: what the store holds after a crash. */
export const validLog: fc.Arbitrary<RunEvent[]> = validEvents.map(stamped);

/** Random events, mostly starting with run_started: almost always malformed. */
const randomLog: fc.Arbitrary<RunEvent[]> = fc
  .record({ startsRight: fc.boolean(), events: fc.array(anyEvent, { maxLength: 14 }) })
  .map(({ startsRight, events }) => stamped(startsRight ? [STARTED, ...events] : events));

/** A correct run with one event dropped, moved or repeated: the near misses a bug would write. */
const mutatedLog: fc.Arbitrary<RunEvent[]> = fc
  .record({
    events: validEvents,
    from: fc.nat(),
    to: fc.nat(),
    how: fc.constantFrom("drop", "move", "repeat"),
  })
  .map(({ events, from, to, how }) => {
    const copy = [...events];
    const i = from % copy.length;
    const [event] = copy.splice(i, how === "repeat" ? 0 : 1);
    const moved = event ?? copy[i]!;
    if (how !== "drop") copy.splice(to % (copy.length + 1), 0, moved);
    return stamped(copy);
  });

/** Any log: random, nearly correct or correct, sometimes with one seq out of place. */
export const anyLog: fc.Arbitrary<RunEvent[]> = fc
  .record({
    events: fc.oneof(randomLog, mutatedLog, validLog),
    seqNoise: fc.option(fc.record({ at: fc.nat(), seq: fc.integer({ min: 0, max: 16 }) }), { freq: 4 }),
  })
  .map(({ events, seqNoise }) => {
    if (!seqNoise || events.length === 0) return events;
    const i = seqNoise.at % events.length;
    return events.map((event, j) => (j === i ? { ...event, seq: seqNoise.seq } : event));
  });

/**
 * Any sequence of events that changes what the model is told, valid or not: responses asking for
 * approval, decisions, results, new messages on resume, cancels, over a small pool of call ids.
 */
export const conversationLog: fc.Arbitrary<RunEvent[]> = fc
  .array(
    fc.oneof(
      anyEvent,
      fc.record({ ids: anyCalls, asks: fc.shuffledSubarray(POOL), stop: anyStop }).map(
        ({ ids, asks, stop }): NewEvent => ({
          type: "model_response",
          text: "",
          toolCalls: ids.map((id) => call(id)),
          stop,
          approvals: asks,
        }),
      ),
      fc
        .record({ callId: anyCallId, approved: fc.boolean() })
        .map(({ callId, approved }): NewEvent => ({ type: "tool_decided", callId, approved, by: "ana" })),
      fc.constant<NewEvent>({
        type: "resumed",
        generation: 2,
        kind: "call_model",
        description: "a new message",
        input: "also this",
      }),
      fc.constant<NewEvent>({ type: "cancelled", by: "ana" }),
    ),
    { maxLength: 20 },
  )
  .map((events) => stamped([STARTED, ...events]));
