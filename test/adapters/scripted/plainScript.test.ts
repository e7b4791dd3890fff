import { describe, expect, it } from "vitest";
import { isPlainScript } from "../../../lib/adapters/scripted/plainScript.ts";
import { ScriptSchema } from "../../../lib/adapters/scripted/script.ts";

const call = { name: "fetch_page", arguments: { page: 1 } };

describe("isPlainScript (a script of text, calls and stops, recognised without the schema)", () => {
  it.each([
    { turns: [{ text: "Hi" }] },
    { turns: [{ text: "", stop: "stop" }] },
    {
      turns: [
        { toolCalls: [call] },
        { toolCalls: [call, { name: "x", arguments: "{not json" }], stop: "tool_calls" },
        { text: "done", stop: "stop" },
      ],
    },
    { turns: [{ toolCalls: [{ name: "x", arguments: {} }] }] },
  ])("takes %j, which ScriptSchema reads as it is", (raw) => {
    expect(isPlainScript(raw)).toBe(true);
    expect(raw).toEqual(ScriptSchema.parse(raw));
  });

  it.each([
    ["a turn with an error", { turns: [{ error: "connection" }] }],
    ["a turn with a delay", { turns: [{ text: "a", delayMs: 5 }] }],
    ["a turn with usage", { turns: [{ text: "a", usage: { inputTokens: 1, outputTokens: 2 } }] }],
    ["no turns", { turns: [] }],
    ["an empty turn", { turns: [{}] }],
    ["an empty stop", { turns: [{ text: "a", stop: "" }] }],
    ["a stop that is not text", { turns: [{ text: "a", stop: 7 }] }],
    ["no calls", { turns: [{ toolCalls: [] }] }],
    ["a call without a name", { turns: [{ toolCalls: [{ name: "", arguments: {} }] }] }],
    ["a call without arguments", { turns: [{ toolCalls: [{ name: "x" }] }] }],
    ["arguments that are an array", { turns: [{ toolCalls: [{ name: "x", arguments: [1] }] }] }],
    ["a call with another key", { turns: [{ toolCalls: [{ ...call, id: "c1" }] }] }],
    ["a misspelt key", { turns: [{ text: "a", stpo: "stop" }] }],
    ["a key beside turns", { turns: [{ text: "a" }], model: "x" }],
    ["not an object", [{ text: "a" }]],
    ["a turn that is not an object", { turns: ["a"] }],
  ])("leaves %s to the schema", (_label, raw) => {
    expect(isPlainScript(raw)).toBe(false);
  });
});
