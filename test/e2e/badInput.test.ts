import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, events, runlog, runlogJson, type ShownEvent, script, tempDataDir } from "../support/cli.ts";

const dir = tempDataDir("bad-input");
let stored: ShownEvent[];

beforeAll(async () => {
  const done = await runlogJson(dir, ["run", "--run-id", "kept", "Plan my afternoon"]);
  expect(done.json).toMatchObject({ status: "completed" });
  stored = await events(dir, "kept");
});
afterAll(() => cleanup(dir));

describe("bad input gets a clear error, exit 2, and leaves stored runs untouched", () => {
  writeFileSync(join(dir, "broken.json"), "{ not json");
  writeFileSync(join(dir, "wrong-shape.json"), JSON.stringify({ turns: [{ text: 5 }] }));

  it.each<[string, string[], RegExp, Record<string, string>?]>([
    ["an unknown run id", ["resume", "no-such-run"], /run no-such-run not found/],
    ["an unknown run id for show", ["show", "no-such-run"], /run no-such-run not found/],
    [
      "a missing script file",
      ["run", "--model", `scripted:${join(dir, "missing.json")}`, "hi"],
      /missing\.json/,
    ],
    [
      "a malformed script file",
      ["run", "--model", `scripted:${join(dir, "broken.json")}`, "hi"],
      /broken\.json/,
    ],
    [
      "a script of the wrong shape",
      ["run", "--model", `scripted:${join(dir, "wrong-shape.json")}`, "hi"],
      /turns\.0\.text/,
    ],
    ["an unknown model kind", ["run", "--model", "gpt-5", "hi"], /unknown model "gpt-5"/],
    ["an unknown agent", ["run", "--agent", "nope", "hi"], /unknown agent "nope"/],
    ["an unknown flag", ["run", "--frobnicate", "hi"], /frobnicate/],
    ["a missing prompt", ["run"], /expected one "prompt"/],
    ["an unknown command", ["explode"], /unknown command "explode"/],
    ["a run id with path characters", ["run", "--run-id", "../etc/passwd", "hi"], /run id .* is invalid/],
    ["a crash point that does not exist", ["ls"], /RUNLOG_CRASH_AT/, { RUNLOG_CRASH_AT: "model:sometime" }],
  ])("%s", async (_, args, message, env = {}) => {
    const result = await runlog(dir, args, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(await events(dir, "kept")).toEqual(stored);
    const listed = await runlogJson<{ runs: { runId: string }[] }>(dir, ["ls"]);
    expect(listed.json.runs.map((r) => r.runId).filter((id) => id !== "kept")).toEqual([]);
  });
});

describe("bad tool calls from the model become error results, and the run goes on", () => {
  it("names an unknown tool and arguments that fail the schema", async () => {
    const model = script(dir, "bad-calls", [
      {
        toolCalls: [
          { name: "launch_rocket", arguments: {} },
          { name: "write_note", arguments: { text: 5 } },
          { name: "get_weather", arguments: "{not json" },
        ],
      },
      { text: "Done", stop: "stop" },
    ]);
    const result = await runlogJson(dir, ["run", "--run-id", "bad-calls", "--model", model, "go"]);
    expect(result.json).toMatchObject({ status: "completed", output: "Done" });
    const results = (await events(dir, "bad-calls")).filter((e) => e.type === "tool_result");
    const byName = Object.fromEntries(results.map((r) => [r.name, r]));
    expect(byName.launch_rocket).toMatchObject({
      isError: true,
      content: expect.stringMatching(/unknown tool launch_rocket; available: get_weather, write_note/),
    });
    expect(byName.write_note).toMatchObject({
      isError: true,
      content: expect.stringMatching(/invalid arguments for write_note: text:/),
    });
    expect(byName.get_weather).toMatchObject({
      isError: true,
      content: expect.stringMatching(/not valid JSON/),
    });
  });
});
