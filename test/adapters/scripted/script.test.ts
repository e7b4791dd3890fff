import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEMO_SCRIPT } from "../../../lib/adapters/scripted/demo.ts";
import { loadScript, parseScript } from "../../../lib/adapters/scripted/script.ts";
import { InvalidInputError } from "../../../lib/core/errors.ts";

const dir = mkdtempSync(join(tmpdir(), "runlog-script-"));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** Write `content` to a new file and return its path. */
function scriptFile(content: string): string {
  const path = join(dir, `script-${++files}.json`);
  writeFileSync(path, content);
  return path;
}

describe("loadScript", () => {
  it("reads a valid script", () => {
    const path = scriptFile(JSON.stringify({ turns: [{ text: "Hi" }, { error: "connection" }] }));
    expect(loadScript(path)).toEqual({ turns: [{ text: "Hi" }, { error: "connection" }] });
  });

  it("names a missing file", () => {
    const path = join(dir, "nowhere.json");
    expect(() => loadScript(path)).toThrow(InvalidInputError);
    expect(() => loadScript(path)).toThrow(`cannot read script ${path}`);
  });

  it("names a file that is not JSON", () => {
    const path = scriptFile("{ turns: [");
    expect(() => loadScript(path)).toThrow(InvalidInputError);
    expect(() => loadScript(path)).toThrow(`script ${path} is not valid JSON`);
  });

  it("names the file and the offending path of a wrong shape", () => {
    const path = scriptFile(
      JSON.stringify({ turns: [{ text: "a" }, { text: "b" }, { text: "c", stop: 7 }] }),
    );
    expect(() => loadScript(path)).toThrow(InvalidInputError);
    expect(() => loadScript(path)).toThrow(`script ${path} is invalid: turns.2.stop: expected string`);
  });
});

describe("the script shape", () => {
  const problem = (raw: unknown): string => {
    try {
      parseScript(raw, "test.json");
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidInputError);
      return (error as Error).message;
    }
    throw new Error("the script was accepted");
  };

  it.each([
    { mistake: "no turns", raw: { turns: [] }, names: "turns: " },
    { mistake: "not an object", raw: [], names: "(root): expected object" },
    { mistake: "a misspelt key", raw: { turns: [{ text: "a", stpo: "stop" }] }, names: "turns.0: " },
    { mistake: "an unknown error", raw: { turns: [{ error: "timeout" }] }, names: "turns.0.error: " },
    {
      mistake: "arguments of the wrong type",
      raw: { turns: [{ toolCalls: [{ name: "t", arguments: 3 }] }] },
      names: "turns.0.toolCalls.0.arguments: expected an object or a string",
    },
    {
      mistake: "a call with no name",
      raw: { turns: [{ toolCalls: [{ arguments: {} }] }] },
      names: "turns.0.toolCalls.0.name",
    },
    { mistake: "a negative delay", raw: { turns: [{ text: "a", delayMs: -1 }] }, names: "turns.0.delayMs: " },
    {
      mistake: "bad usage",
      raw: { turns: [{ text: "a", usage: { inputTokens: 1 } }] },
      names: "turns.0.usage.outputTokens",
    },
    {
      mistake: "an empty turn",
      raw: { turns: [{ text: "a" }, {}] },
      names: "turns.1: a turn needs text, toolCalls, stop or error",
    },
    {
      mistake: "an error with text",
      raw: { turns: [{ error: "rejected", text: "a" }] },
      names: "turns.0: a turn with an error has no text",
    },
  ])("rejects $mistake, naming $names", ({ raw, names }) => {
    const message = problem(raw);
    expect(message).toContain("test.json");
    expect(message).toContain(names);
  });

  it("accepts the example turns of every kind", () => {
    const raw = {
      turns: [
        { toolCalls: [{ name: "write_note", arguments: { text: "a" } }] },
        { text: "partial", stop: "max_output" },
        { text: "cut", stop: "interrupted" },
        { error: "connection" },
        { text: "no", stop: "refusal" },
        { stop: "context_full" },
        { text: "Done", stop: "stop", delayMs: 0, usage: { inputTokens: 1, outputTokens: 2 } },
      ],
    };
    expect(parseScript(raw, "test.json")).toEqual(raw);
  });

  it("accepts the built-in demo script", () => {
    expect(parseScript(DEMO_SCRIPT, "demo")).toEqual(DEMO_SCRIPT);
  });
});
