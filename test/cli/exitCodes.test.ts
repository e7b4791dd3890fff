import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IdTakenError } from "../../lib/core/errors.ts";
import { cleanup, events, library, ROOT, runlogJson, script, tempDataDir } from "../support/cli.ts";
import { cli } from "./support.ts";

const dir = tempDataDir("cli-exit");
afterAll(() => cleanup(dir));

const DONE = { text: "Done", stop: "stop" };
let model: string;

beforeAll(async () => {
  model = script(dir, "done", [DONE, DONE, DONE]);
  const first = await runlogJson(dir, ["run", "--run-id", "source", "--model", model, "hello"]);
  expect(first.json).toMatchObject({ status: "completed" });
  const fork = await runlogJson(dir, ["fork", "source", "--id", "copy", "--at", "1"]);
  expect(fork.code, fork.stderr).toBe(0);
});

describe("a caller-chosen id that names another run", () => {
  it("is exit 2 everywhere: a taken fork id, the source's own id, a taken run id", async () => {
    const before = await events(dir, "source");
    const cases: [string[], RegExp][] = [
      [
        ["fork", "source", "--id", "copy"],
        /^runlog: fork id copy is taken by a different run \(forked from source at seq 1, not forked from source at seq 2\)\n$/,
      ],
      [["fork", "source", "--id", "source"], /^runlog: fork id source is taken by the run being forked/],
      [
        ["fork", "copy", "--id", "source"],
        /^runlog: fork id source is taken by a different run \(started fresh, not forked from copy at seq 3\)\n$/,
      ],
      [
        ["run", "--run-id", "source", "--model", model, "goodbye"],
        /^runlog: run id source is taken by a different run \(input "hello", not "goodbye"\)\n$/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await cli(args, { dir });
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect(await events(dir, "source")).toEqual(before);
  });

  it("names only what differs: the model when the model does", async () => {
    const other = script(dir, "other", [DONE]);
    const result = await cli(["run", "--run-id", "source", "--model", other, "hello"], { dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`(model ${model}, not ${other})`);
    expect(result.stderr).not.toMatch(/agent|input/);
  });

  it("the same fork made again (a retry) converges on it: exit 0, nothing written, nothing run twice", async () => {
    const before = await events(dir, "copy");
    const again = await cli(["fork", "source", "--id", "copy", "--at", "1"], { dir });
    expect(again.code, again.stderr).toBe(0);
    expect(await events(dir, "copy")).toEqual(before);
  });

  it("is an IdTakenError carrying the id and the differences", async () => {
    const { runlog } = await library(dir);
    const refused = await runlog
      .start({ agent: "demo", input: "bye", model, runId: "source" })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(IdTakenError);
    expect(refused).toMatchObject({ id: "source", differences: ['input "hello", not "bye"'] });
  });
});

describe("messages", () => {
  it.each([
    [["fork", "source", "--at", "two"], 'runlog: fork: --at takes a seq (a whole number), got "two"\n'],
    [["sweep", "--stale-after", "soon"], 'runlog: sweep: --stale-after takes a whole number, got "soon"\n'],
    [
      ["serve", "--port", "http"],
      'runlog: serve: --port takes a port from 0 to 65535 (0 picks a free one), got "http"\n',
    ],
    [["show"], "runlog: show: expected <runId>, got 0 argument(s)\n"],
    // A value that starts with a dash reads as an option to parseArgs, which says only "ambiguous".
    [
      ["run", "--max-turns", "-3", "hi"],
      'runlog: run: --max-turns is followed by "-3", which reads as an option: write --max-turns=-3 to give it as the value of --max-turns\n',
    ],
    [
      ["run", "--max-turns=-3", "hi"],
      'runlog: run: --max-turns takes a whole number of model turns, got "-3"\n',
    ],
    // Given twice, the second time with a dash: the message names that one.
    [
      ["run", "--stop", "END", "--stop", "-x", "hi"],
      'runlog: run: --stop is followed by "-x", which reads as an option: write --stop=-x to give it as the value of --stop\n',
    ],
    // The library's own check, rethrown with its words: no "cause:" line repeating them.
    [
      ["run", "--run-id", "", "hi"],
      'runlog: --run-id: run id "" is invalid: use 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit\n',
    ],
    [["help", "nosuch"], 'runlog: help: unknown command "nosuch"; run "runlog help"\n'],
    // The library names its own field: the flag the user typed goes in front.
    [["fork", "source", "--at", "99"], /^runlog: --at: atSeq must be a whole number from 1 to \d+/],
    [["run", "--temperature", "5", "hi"], /^runlog: --temperature: modelSettings\.temperature must be/],
    // A message that opens with the field opens with the flag instead, not with both.
    [["run", "--metadata", "[1]", "hi"], /^runlog: --metadata: expected a JSON object/],
    [
      ["ls", "--frob"],
      /^runlog: ls takes no --frob; it takes --status, --forks-of, --children-of \(and --dir, --agents, --help, --json, --url, --token\)\nusage:\n {2}runlog ls /,
    ],
  ])("%j has one runlog: prefix", async (args, stderr) => {
    const result = await cli(args, { dir });
    expect(result.code).toBe(2);
    if (typeof stderr === "string") expect(result.stderr).toBe(stderr);
    else expect(result.stderr).toMatch(stderr);
  });
});

describe("a failure with --json", () => {
  it("prints the error's code, message and facts as JSON on stdout, the line on stderr", async () => {
    const missing = await cli(["show", "nobody", "--json"], { dir });
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout)).toEqual({
      error: { code: "not_found", message: "run nobody not found", runId: "nobody" },
    });
    expect(missing.stderr).toBe("runlog: run nobody not found\n");
    // A key used for another request: its code, and the request it was used for in words.
    const sent = await cli(["send", "source", "more", "--idempotency-key", "k1", "--json"], { dir });
    expect(sent.code, sent.stderr).toBe(0);
    const reused = await cli(["cancel", "source", "--idempotency-key", "k1", "--json"], { dir });
    expect(reused.code).toBe(1);
    expect(JSON.parse(reused.stdout).error).toMatchObject({
      code: "idempotency_key_reused",
      runId: "source",
    });
    expect(reused.stderr).toMatch(/\(the key was used for a message \(seq \d+\), not for a cancel\)\n$/);
  });

  it("names the field of bad input", async () => {
    const bad = await cli(["fork", "source", "--at", "99", "--json"], { dir });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error).toMatchObject({ code: "invalid_input", field: "atSeq" });
  });
});

describe("--version", () => {
  const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
  it.each([["--version"], ["version"], ["-v"]])("%s prints the package version", async (flag) => {
    const result = await cli([flag]);
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
  });
});
