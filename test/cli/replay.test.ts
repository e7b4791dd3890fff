import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replayCommand } from "../../lib/cli/replay.ts";
import { canonicalJson } from "../../lib/core/canonicalJson.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { readConfig } from "../../lib/runtime/readConfig.ts";
import {
  cleanup,
  events,
  notes,
  runlog,
  runlogJson,
  script,
  storeEnv,
  tempDataDir,
  testEnv,
} from "../support/cli.ts";
import { capturedIo } from "./support.ts";

interface Report {
  runs: {
    runId: string;
    replayRunId: string;
    changed: boolean;
    differences: { what: string; recorded: unknown; replayed: unknown }[];
  }[];
  changed: number;
}

const DAY_ANSWER =
  "I checked today's weather in Lisbon and wrote down two things for your day out: " +
  "pack sunglasses, and book a table by the river.";

let dir: string;
/** The originals' stored events, as canonical JSON: what "never written to" is checked against. */
const stored = async (...runIds: string[]) =>
  Promise.all(
    runIds.map(async (id) => (await events(dir, id)).map((e) => canonicalJson(e as unknown as RunEvent))),
  );
const runCount = async () => (await runlogJson<{ runs: unknown[] }>(dir, ["ls"])).json.runs.length;
const callsOf = (log: { type: string; toolCalls?: { name: string; arguments: string }[] }[]) =>
  log.flatMap((e) =>
    e.type === "model_response" ? (e.toolCalls ?? []).map((c) => [c.name, c.arguments]) : [],
  );

beforeAll(async () => {
  dir = tempDataDir("replay-cli");
  for (const runId of ["day", "day2"]) {
    const run = await runlog(dir, ["run", "--run-id", runId, "--model", "scripted:demo", "plan my day"]);
    expect(run.code, run.stderr).toBe(0);
  }
});
afterAll(() => cleanup(dir));

describe("runlog script", () => {
  it("writes a script that plays the run again: the same tool calls, arguments and answer", async () => {
    const out = join(dir, "day.script.json");
    const written = await runlog(dir, ["script", "day", "--out", out]);
    expect(written.code, written.stderr).toBe(0);
    const again = await runlogJson<{ runId: string; output: string }>(dir, [
      "run",
      "--model",
      `scripted:${out}`,
      "plan my day",
    ]);
    expect(again.json.output).toBe(DAY_ANSWER);
    expect(callsOf(await events(dir, again.json.runId))).toEqual(callsOf(await events(dir, "day")));
    // Without --out: the same script on stdout.
    const printed = await runlog(dir, ["script", "day"]);
    expect(JSON.parse(printed.stdout)).toEqual(JSON.parse(readFileSync(out, "utf8")));
  });

  it.each([
    [
      "a folder that does not exist",
      "no/such/dir/day.json",
      /^runlog: script: --out no\/such\/dir\/day\.json: .*no\/such\/dir is not a directory$/m,
    ],
    ["a folder", ".", /^runlog: script: --out "\." is a directory, not a file$/m],
  ])("exits 2 naming --out when it is %s", async (_, out, message) => {
    const result = await runlog(dir, ["script", "day", "--out", out]);
    expect(result.code, result.stdout).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

describe("runlog replay", () => {
  it("reports no change on the same model, runs no tool again and leaves the originals as they were", async () => {
    const before = await stored("day", "day2");
    const notesBefore = notes(dir).length;
    const junit = join(dir, "same.xml");
    const result = await runlogJson<Report>(dir, [
      "replay",
      "day",
      "day2",
      "--model",
      "scripted:demo",
      "--fail-on-change",
      "--junit",
      junit,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json.changed).toBe(0);
    expect(result.json.runs.map((r) => [r.runId, r.changed, r.differences])).toEqual([
      ["day", false, []],
      ["day2", false, []],
    ]);
    expect(notes(dir).length).toBe(notesBefore);
    expect(await stored("day", "day2")).toEqual(before);
    const xml = readFileSync(junit, "utf8");
    expect(wellFormed(xml)).toBe(true);
    expect(xml.match(/<testcase /g)).toHaveLength(2);
    expect(xml).not.toContain("<failure");
  });

  it("names the changed answer, the removed call and the changed arguments; --fail-on-change exits 1", async () => {
    const before = await stored("day", "day2");
    const model = script(dir, "changed", [
      { toolCalls: [{ name: "get_weather", arguments: { city: "Lisboa" } }] },
      { toolCalls: [{ name: "write_note", arguments: { text: "Pack sunglasses" } }] },
      { text: 'Have a <nice> day & "enjoy"' },
    ]);
    const junit = join(dir, "changed.xml");
    const ids = join(dir, "ids.txt");
    writeFileSync(ids, "# the runs to check\nday\n\nday2\n");
    const result = await runlogJson<Report>(dir, [
      "replay",
      "--ids-from",
      ids,
      "--model",
      model,
      "--fail-on-change",
      "--junit",
      junit,
      "--concurrency",
      "2",
    ]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.json.changed).toBe(2);
    const [day] = result.json.runs;
    expect(day!.differences).toEqual([
      { what: "answer", recorded: DAY_ANSWER, replayed: 'Have a <nice> day & "enjoy"' },
      {
        what: "tool_call_arguments",
        recorded: { name: "get_weather", arguments: '{"city":"Lisbon"}' },
        replayed: { name: "get_weather", arguments: '{"city":"Lisboa"}' },
      },
      {
        what: "tool_call_removed",
        recorded: { name: "write_note", arguments: '{"text":"Book a table by the river"}' },
        replayed: null,
      },
    ]);
    const xml = readFileSync(junit, "utf8");
    // The check itself tells broken XML: the answer's markup characters unescaped would be.
    expect(wellFormed('<a x="1">Have a <nice> day</a>')).toBe(false);
    expect(wellFormed("<a>day & night</a>")).toBe(false);
    expect(wellFormed(xml)).toBe(true);
    expect(xml.match(/<testcase /g)).toHaveLength(2);
    expect(xml.match(/<failure /g)).toHaveLength(2);
    expect(xml).toContain("tool call removed: write_note");
    expect(await stored("day", "day2")).toEqual(before);

    // Without --fail-on-change the same changes exit 0, and the text names them.
    const text = await runlog(dir, ["replay", "day", "--model", model]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("tool call arguments changed: get_weather");
    expect(text.stdout).toContain("1 of 1 run(s) changed");
  });

  it("prints progress on stderr only when it is a terminal", async () => {
    const config = readConfig(testEnv(storeEnv(dir)));
    for (const terminal of [true, false]) {
      const { io, out, err } = capturedIo();
      const args = ["day", "day2", "--model", "scripted:demo", "--dir", dir, "--concurrency", "1"];
      expect(await replayCommand(args, io, config, terminal)).toBe(0);
      expect(err).toEqual(terminal ? ["replay 1/2: day unchanged", "replay 2/2: day2 unchanged"] : []);
      expect(out.at(-1)).toBe("0 of 2 run(s) changed");
    }
  });

  it.each([
    ["an unknown run", ["day", "no-such-run", "--model", "scripted:demo"], /run no-such-run not found/],
    ["a bad spec", ["day", "--model", "nowhere:x"], /unknown model "nowhere:x"/],
    ["a missing script", ["day", "--model", "scripted:/no/such/file.json"], /cannot read script/],
    ["a model it cannot build (no key)", ["day", "--model", "openai:gpt-4.1"], /--model: .*OPENAI_API_KEY/],
    ["no model", ["day"], /--model SPEC is required/],
    ["no run", ["--model", "scripted:demo"], /at least one run id/],
    ["bad --tools", ["day", "--model", "scripted:demo", "--tools", "some"], /--tools takes recorded or live/],
    ["bad --concurrency", ["day", "--model", "scripted:demo", "--concurrency", "0"], /--concurrency/],
    ["a bad run id", ["../x", "--model", "scripted:demo"], /is invalid/],
    [
      "a junit file in no directory",
      ["day", "--model", "scripted:demo", "--junit", "/no/such/dir/x.xml"],
      /--junit/,
    ],
  ])("exits 2 on %s and writes nothing", async (_, args, message) => {
    const runs = await runCount();
    const before = await stored("day");
    const result = await runlog(dir, ["replay", ...args]);
    expect(result.code, result.stdout).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(await runCount()).toBe(runs);
    expect(await stored("day")).toEqual(before);
  });
});

describe("runlog replay --json", () => {
  it.each([
    [
      "an unknown run",
      ["no-such-run", "--model", "scripted:demo"],
      { code: "not_found", runId: "no-such-run" },
    ],
    [
      "a model it cannot build",
      ["day", "--model", "openai:gpt-4.1"],
      { code: "invalid_input", field: "model" },
    ],
    ["bad usage", ["day"], { code: "usage" }],
  ])("prints the failure as an error object on stdout: %s", async (_, args, error) => {
    const result = await runlog(dir, ["replay", ...args, "--json"]);
    expect(result.code, result.stderr).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({ error: expect.objectContaining(error) });
  });
});

/**
 * Whether `xml` is well-formed as far as a JUnit file goes: one declaration, elements that nest
 * and close, quoted attributes, known entities, no stray markup characters in text.
 */
function wellFormed(xml: string): boolean {
  const body = xml.replace(/^<\?xml [^?]*\?>\s*/, "");
  const stack: string[] = [];
  const token = /<\/([\w.-]+)\s*>|<([\w.-]+)((?:\s+[\w.-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let at = 0;
  for (let match = token.exec(body); match; match = token.exec(body)) {
    at = token.lastIndex;
    const [, close, open, attributes, selfClosing, text] = match;
    const escaped = text ?? attributes ?? "";
    if (/&(?!(amp|lt|gt|quot|apos);)/.test(escaped) || text?.includes(">")) return false;
    if (close !== undefined && stack.pop() !== close) return false;
    if (open !== undefined && selfClosing !== "/") stack.push(open);
  }
  return at === body.length && stack.length === 0;
}
