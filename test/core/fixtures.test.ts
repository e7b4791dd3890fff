import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { classify } from "../../lib/core/classify.ts";
import { decodeEvent } from "../../lib/core/decodeEvent.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { readLog } from "../../lib/core/logReader.ts";
import { toMessages } from "../../lib/core/messageBuilder.ts";
import { CONTINUE_RESPONSE_NOTE, finalOutput } from "../../lib/core/messages.ts";
import { decodeStoredEvent } from "../../lib/core/storedEvents.ts";
import { fromAnchor } from "../../lib/core/tail.ts";

// Frozen logs as stored by schema v1. Never edit them: a change that breaks one breaks stored runs.
const V1 = new URL("../fixtures/events/v1/", import.meta.url);
const BROKEN = new URL("../fixtures/events/broken/", import.meta.url);

const readJson = (dir: URL, file: string): unknown => JSON.parse(readFileSync(new URL(file, dir), "utf8"));

function decodeLog(file: string): RunEvent[] {
  const records = readJson(V1, file) as unknown[];
  return records.map((record, i) => {
    const decoded = decodeEvent(record);
    if (!decoded.ok) throw new Error(`${file} record ${i}: ${decoded.problem}`);
    return decoded.event;
  });
}

describe("schema v1 fixtures", () => {
  it.each(readdirSync(V1).filter((file) => file.endsWith(".json")))(
    "%s decodes to exactly what is stored",
    (file) => {
      expect(decodeLog(file)).toEqual(readJson(V1, file));
    },
  );

  it("a completed demo run is completed, with its final answer", () => {
    const events = decodeLog("completed-demo.json");
    expect(classify(events)).toMatchObject({ resumable: false, reason: "completed", seq: 10 });
    expect(finalOutput(events)).toBe(
      "I checked the weather in Lisbon and saved two notes for your afternoon.",
    );
    expect(toMessages(events).map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "tool",
      "assistant",
    ]);
  });

  it("a crashed tool batch recovers the started call and runs the one never started", () => {
    const c = classify(decodeLog("crashed-tool-batch.json"));
    expect(c.resumable && c.kind).toBe("recover_tools");
    expect(c.resumable && c.unansweredToolCalls.map((call) => call.id)).toEqual(["call_1_1", "call_1_2"]);
    expect(c.resumable && c.interruptedToolCalls.map((call) => call.id)).toEqual(["call_1_1"]);
  });

  it("a run killed mid-stream continues from the text it saved", () => {
    const events = decodeLog("killed-mid-stream.json");
    expect(classify(events)).toMatchObject({ resumable: true, kind: "continue_partial" });
    expect(toMessages(events)[1]).toEqual({ role: "assistant", content: "Once upon a time", toolCalls: [] });
  });

  it("a recovered run that hit the output limit continues its response", () => {
    const events = decodeLog("recovered-and-continued.json");
    expect(classify(events)).toMatchObject({ resumable: true, kind: "continue_response" });
    expect(toMessages(events)[2]).toMatchObject({ role: "tool", content: "interrupted", isError: true });
  });
});

describe("schema v1 fixtures: an answer continued past the output limit", () => {
  it("is the text of every response it continues and its own, from the whole log and from its tail", () => {
    const events = decodeLog("continued-at-output-limit.json");
    expect(classify(events)).toMatchObject({ resumable: false, reason: "completed", seq: 8 });
    expect(finalOutput(events)).toBe("The answer is long and complete.");
    // Each response is shown to the model as its own call gave it, then told to continue.
    expect(toMessages(events).map((m) => m.content)).toEqual([
      "What is the answer?",
      "The answer is lo",
      CONTINUE_RESPONSE_NOTE,
      "ng and ",
      CONTINUE_RESPONSE_NOTE,
      "complete.",
    ]);
    // A tail from the last anchor, as an older runlog read it, has only the last part.
    expect(finalOutput(events.slice(-1))).toBe("complete.");
    // The tail read now starts at the oldest response the answer continues.
    const tail = fromAnchor(events.slice(1));
    expect(tail.start).toEqual({ seq: 2, generation: 1 });
    expect(finalOutput(tail.events)).toBe("The answer is long and complete.");
    expect(classify(tail.events, tail.start)).toEqual(classify(events));
  });
});

describe("schema v1 fixtures: structured output", () => {
  it("a run whose first answer was rejected completes with the value the schema accepted", () => {
    const events = decodeLog("structured-output.json");
    expect(classify(events)).toMatchObject({ resumable: false, reason: "completed", seq: 3 });
    expect(finalOutput(events)).toEqual({ city: "Lisbon", celsius: 21 });
    expect(toMessages(events).map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    // The log cut after the rejection: the model is called again, told the problems.
    const cut = events.slice(0, 2);
    expect(classify(cut)).toMatchObject({ resumable: true, kind: "call_model" });
    expect(toMessages(cut).at(-1)?.content).toContain("celsius: Invalid input");
  });
});

describe("schema v1 fixtures: a transfer between agents", () => {
  it("a run triage handed to billing reads as billing's, with the transfer as its call's answer", () => {
    const events = decodeLog("transferred.json");
    expect(classify(events)).toMatchObject({ resumable: false, reason: "completed", seq: 6 });
    expect(readLog(events)).toMatchObject({ agent: "billing", model: "openai:gpt-4.1" });
    expect(toMessages(events).map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "assistant"]);
    // The log cut at the transfer: the model is called again, as billing.
    const cut = events.slice(0, 5);
    expect(classify(cut)).toMatchObject({ resumable: true, kind: "call_model" });
    expect(readLog(cut).agent).toBe("billing");
    // Cut before it: the transfer call is answered first, and the run is still triage's.
    const before = events.slice(0, 4);
    expect(classify(before)).toMatchObject({ resumable: true, kind: "run_tools" });
    expect(readLog(before)).toMatchObject({ agent: "triage", batch: { agent: "triage" } });
  });
});

describe("broken fixtures", () => {
  it.each([
    { file: "unknown-version.json", names: "unknown schema version 99" },
    { file: "missing-version.json", names: "v:" },
    { file: "missing-field.json", names: "callId:" },
    { file: "wrong-type.json", names: "isError:" },
    { file: "unknown-type.json", names: "type:" },
  ])("$file is rejected with a problem naming $names", ({ file, names }) => {
    const decoded = decodeEvent(readJson(BROKEN, file));
    expect(decoded.ok).toBe(false);
    expect(!decoded.ok && decoded.problem).toContain(names);
  });

  it("a record that is not an object is rejected, not thrown on", () => {
    for (const raw of [null, "text", 42, []]) expect(decodeEvent(raw).ok).toBe(false);
  });
});

describe("the stored-event check (what a store reads back)", () => {
  it.each(readdirSync(V1).filter((file) => file.endsWith(".json")))(
    "%s reads as the full check reads it",
    (file) => {
      const records = readJson(V1, file) as unknown[];
      expect(records.map((record) => decodeStoredEvent(record))).toEqual(
        records.map((record) => decodeEvent(record)),
      );
    },
  );

  it.each([
    { file: "unknown-version.json", names: "unknown schema version 99" },
    { file: "missing-version.json", names: "v: missing" },
    { file: "unknown-type.json", names: 'type: unknown event type "model_thought"' },
  ])("refuses $file, whose envelope no store writes, naming $names", ({ file, names }) => {
    const decoded = decodeStoredEvent(readJson(BROKEN, file));
    expect(decoded.ok).toBe(false);
    expect(!decoded.ok && decoded.problem).toContain(names);
  });

  it.each([
    [null, "expected a JSON object"],
    ["text", "expected a JSON object"],
    [[], "expected a JSON object"],
    [{ v: 1, type: "user_message", seq: 0, at: "x", text: "" }, "seq: expected an integer >= 1, got 0"],
    [{ v: 1, type: "user_message", seq: 2, text: "" }, "at: expected the time it was written"],
  ])("refuses %j, naming what is wrong", (raw, names) => {
    const decoded = decodeStoredEvent(raw);
    expect(!decoded.ok && decoded.problem).toContain(names);
  });
});
