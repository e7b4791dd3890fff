import assert from "node:assert/strict";
import { assertEnding, callWith } from "./calls.ts";
import type { ContractFixture } from "./types.ts";

/** One check of the contract: what it shows and how. */
export interface ContractCase {
  name: string;
  run(fixture: ContractFixture): Promise<void>;
}

const PIECES = ["The weather ", "in Oslo ", "is sunny today."];
const TEXT = PIECES.join("");

/** Streaming and every ending a finished response can have. */
export const ENDING_CASES: readonly ContractCase[] = [
  {
    name: "streams text to onText in pieces whose concatenation is the reply's text, ending stop",
    async run(fixture) {
      const { reply, pieces } = await callWith(fixture, { kind: "text", pieces: PIECES, ending: "stop" });
      assert.equal(reply.text, TEXT, "text");
      assertEnding(reply, "stop", "a finished answer");
      assert.equal(pieces.join(""), TEXT, "the pieces told to onText, joined");
      assert.ok(pieces.length > 1, `the text arrived in ${pieces.length} piece(s), not streamed`);
    },
  },
  {
    name: "a tool call ends with tool_calls, with an id, the tool's name and the arguments as sent",
    async run(fixture) {
      const call = { name: "get_weather", arguments: '{"city":"Oslo"}' };
      const { reply } = await callWith(fixture, { kind: "tool_calls", calls: [call] });
      assert.equal(reply.stop, "tool_calls", "stop");
      assert.equal(reply.toolCalls.length, 1, "one tool call");
      const [got] = reply.toolCalls;
      assert.ok(typeof got?.id === "string" && got.id.length > 0, "the call has an id");
      assert.equal(got.name, call.name, "the tool's name");
      assert.deepEqual(JSON.parse(got.arguments), { city: "Oslo" }, "the arguments");
    },
  },
  {
    name: "parallel tool calls keep their order, each with an id of its own",
    async run(fixture) {
      const calls = [
        { name: "get_weather", arguments: '{"city":"Oslo"}' },
        { name: "get_weather", arguments: '{"city":"Lima"}' },
      ];
      const { reply } = await callWith(fixture, { kind: "tool_calls", calls });
      assert.equal(reply.stop, "tool_calls", "stop");
      const cities = reply.toolCalls.map((call) => (JSON.parse(call.arguments) as { city: string }).city);
      assert.deepEqual(cities, ["Oslo", "Lima"], "the calls, in order");
      const ids = new Set(reply.toolCalls.map((call) => call.id));
      assert.equal(ids.size, 2, "two distinct ids");
    },
  },
  {
    name: "a tool call with invalid JSON arguments is kept as sent, for the tool's validation to answer",
    async run(fixture) {
      const broken = '{"city": "Os';
      const { reply } = await callWith(fixture, {
        kind: "tool_calls",
        calls: [{ name: "get_weather", arguments: broken }],
      });
      assert.equal(reply.stop, "tool_calls", "stop");
      assert.equal(reply.toolCalls[0]?.arguments, broken, "the arguments, exactly as the model sent them");
    },
  },
  {
    name: "an output limit ends max_output and keeps the text",
    async run(fixture) {
      const { reply } = await callWith(fixture, { kind: "text", pieces: PIECES, ending: "max_output" });
      assertEnding(reply, "max_output", "an answer cut by the output limit");
      assert.equal(reply.text, TEXT, "the text so far is kept, to be continued");
    },
  },
  {
    name: "a refusal or a filter ends refusal",
    async run(fixture) {
      const { reply } = await callWith(fixture, { kind: "text", pieces: PIECES, ending: "refusal" });
      assertEnding(reply, "refusal", "a refused answer");
    },
  },
  {
    name: "a prompt too long for the context window ends context_full (an ending, not an error)",
    async run(fixture) {
      const { reply } = await callWith(fixture, { kind: "context_full" });
      assertEnding(reply, "context_full", "a full context window");
      assert.equal(reply.text, "", "no text");
    },
  },
];
