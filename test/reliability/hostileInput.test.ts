import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidInputError } from "../../lib/core/errors.ts";
import { MAX_EVENT_BYTES } from "../../lib/ports/eventStore.ts";
import { cleanup, events, library, runlog, type ShownEvent, tempDataDir } from "../support/cli.ts";
import { tally } from "./support/tally.ts";

/**
 * Malformed, oversized and hostile input to the CLI (and, where the OS would
 * not even pass it to the CLI, to the library): a clear message, exit 2, and
 * nothing written. The HTTP API's bad input is tested in test/http.
 */
const dir = tempDataDir("reliability-hostile");
let kept: ShownEvent[];
let rejected = 0;

beforeAll(async () => {
  const { runlog: lib } = await library(dir);
  expect(await lib.start({ agent: "demo", input: "Plan my afternoon", runId: "kept" })).toMatchObject({
    status: "completed",
  });
  kept = await events(dir, "kept");
});
afterAll(async () => {
  tally("hostile input", { rejected });
  await cleanup(dir);
});

/** Nothing changed: the one stored run is as it was, and no other run exists. */
async function expectNothingWritten(): Promise<void> {
  expect(await events(dir, "kept")).toEqual(kept);
  const { runlog: lib } = await library(dir);
  expect((await lib.list({ limit: 100 })).runs.map((run) => run.runId)).toEqual(["kept"]);
}

const scriptFile = (name: string, content: string) => {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, content);
  return `scripted:${path}`;
};

describe.concurrent("the CLI refuses hostile input with exit 2 and writes nothing", () => {
  const INVALID_ID = /is invalid: use 1-128 letters, digits/;
  const cases: [string, () => string[], RegExp][] = [
    ["a run id with a slash", () => ["run", "--run-id", "a/b", "hi"], INVALID_ID],
    ["a run id of dots", () => ["run", "--run-id", "..", "hi"], INVALID_ID],
    ["a run id of 129 characters", () => ["run", "--run-id", "a".repeat(129), "hi"], INVALID_ID],
    ["an empty run id", () => ["run", "--run-id", "", "hi"], INVALID_ID],
    ["a run id with a newline", () => ["run", "--run-id", "a\nb", "hi"], INVALID_ID],
    ["a run id with non-ASCII letters", () => ["run", "--run-id", "résumé", "hi"], INVALID_ID],
    ["a path as the run to resume", () => ["resume", "../../etc/passwd"], INVALID_ID],
    ["an encoded path to show", () => ["show", "%2e%2e%2fetc"], INVALID_ID],
    ["a fork id with a slash", () => ["fork", "kept", "--id", "../x"], /fork id .* is invalid/],
    ["a fork at seq 0", () => ["fork", "kept", "--at", "0"], /atSeq must be a whole number from 1 to/],
    [
      "a fork past the end",
      () => ["fork", "kept", "--at", "999999"],
      /atSeq must be a whole number from 1 to/,
    ],
    ["a fork at a non-number", () => ["fork", "kept", "--at", "1e3"], /--at takes a seq/],
    ["a hostile call id", () => ["approve", "kept", "../../x"], /no call \.\.\/\.\.\/x waiting for approval/],
    ["an empty message", () => ["send", "kept", ""], /message: expected a non-empty string/],
    ["a blank prompt", () => ["run", "   "], /input: expected a non-empty string/],
    [
      "tool arguments of the wrong type",
      () => [
        "run",
        "--model",
        scriptFile("args", '{"turns":[{"toolCalls":[{"name":"write_note","arguments":5}]}]}'),
        "hi",
      ],
      /turns\.0\.toolCalls\.0\.arguments: expected an object or a string/,
    ],
    [
      "turns that are not a list",
      () => ["run", "--model", scriptFile("turns", '{"turns":"all of them"}'), "hi"],
      /turns: expected array/,
    ],
    [
      "a delay given as text",
      () => ["run", "--model", scriptFile("delay", '{"turns":[{"text":"x","delayMs":"100"}]}'), "hi"],
      /turns\.0\.delayMs: expected number/,
    ],
    [
      "an unknown key in a turn",
      () => ["run", "--model", scriptFile("extra", '{"turns":[{"text":"x","rm -rf":true}]}'), "hi"],
      // Named by where it is, never quoted: a key may be the text of a file the caller could not read.
      /^(?![\s\S]*rm -rf)[\s\S]*turns\.0: unknown key/,
    ],
    [
      "an unknown scripted error",
      () => ["run", "--model", scriptFile("error", '{"turns":[{"error":"meltdown"}]}'), "hi"],
      /turns\.0\.error/,
    ],
    [
      "a script that is a list",
      () => ["run", "--model", scriptFile("list", "[1,2,3]"), "hi"],
      /\(root\): expected object/,
    ],
    [
      "a 10 MB script of nested arrays",
      () => [
        "run",
        "--model",
        scriptFile("nested", `${"[".repeat(5_000_000)}${"]".repeat(5_000_000)}`),
        "hi",
      ],
      /nested\.json/,
    ],
    [
      "a directory as the script",
      () => {
        mkdirSync(join(dir, "a-dir.json"), { recursive: true });
        return ["run", "--model", `scripted:${join(dir, "a-dir.json")}`, "hi"];
      },
      /cannot read script/,
    ],
  ];

  it.each(cases)("%s", async (_, args, message) => {
    const result = await runlog(dir, args());
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    await expectNothingWritten();
    rejected++;
  });
});

describe("input too large for any argv (the OS refuses past 128 KiB), through the library", () => {
  // Past the store's bound on one event (MAX_EVENT_BYTES, 64 MB): big events are stored in chunks below that.
  const HUGE = "x".repeat(MAX_EVENT_BYTES + 1);

  it.each<[string, () => Promise<unknown>]>([
    [
      "a 64 MB prompt",
      async () => (await library(dir)).runlog.start({ agent: "demo", input: HUGE, runId: "ten" }),
    ],
    ["a 64 MB message", async () => (await library(dir)).runlog.send("kept", HUGE)],
    [
      "a fork with a 64 MB input",
      async () => (await library(dir)).runlog.fork({ runId: "kept", forkId: "ten-fork", input: HUGE }),
    ],
  ])("%s is bad input naming the limit, and nothing is written", async (_, call) => {
    const error = await call().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(/bytes as stored, over the \d+ .*can hold/);
    await expectNothingWritten();
    rejected++;
  });
});
