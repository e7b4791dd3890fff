import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, events, script, tempDataDir } from "../support/cli.ts";
import { cli } from "./support.ts";

const dir = tempDataDir("cli-input");
afterAll(() => cleanup(dir));

/** Longer than one argument may be (MAX_ARG_STRLEN, 128 KiB on Linux). */
const LONG = `${"Plan a very long afternoon in Lisbon. ".repeat(6_000)}Thanks — ✓`;
const DONE = { text: "Done", stop: "stop" };

describe("a prompt, message or input from stdin or a file", () => {
  it("is too long for an argument, as the reason for the other ways in", async () => {
    const result = await cli(["run", "--model", "scripted:demo", LONG], { dir }).catch((error) => error);
    expect(result).toMatchObject({ code: "E2BIG" });
  });

  it("run reads its prompt from stdin with -", async () => {
    const model = script(dir, "stdin", [DONE]);
    const result = await cli(["run", "--run-id", "stdin", "--model", model, "-", "--json"], {
      dir,
      stdin: `${LONG}\n`,
    });
    expect(result.code, result.stderr).toBe(0);
    expect((await events(dir, "stdin"))[0]?.input === LONG).toBe(true);
  });

  it("run, send and fork read their text from --input-file", async () => {
    const file = join(dir, "prompt.txt");
    writeFileSync(file, LONG);
    const model = script(dir, "file", [DONE, DONE, DONE]);
    const run = await cli(["run", "--run-id", "file", "--model", model, "--input-file", file], { dir });
    expect(run.code, run.stderr).toBe(0);
    const send = await cli(["send", "file", "--input-file", file], { dir });
    expect(send.code, send.stderr).toBe(0);
    const fork = await cli(["fork", "file", "--id", "file-fork", "-"], { dir, stdin: "and once more" });
    expect(fork.code, fork.stderr).toBe(0);
    // Compared as booleans: a failure would print the 230 KB prompt.
    const log = await events(dir, "file");
    expect(log[0]?.input === LONG).toBe(true);
    expect(log.find((e) => e.type === "resumed")?.input === LONG).toBe(true);
    const forked = (await events(dir, "file-fork")).filter((e) => e.type === "resumed");
    expect(forked.at(-1)?.input).toBe("and once more");
  });

  it.each<[string, string[], string | undefined, RegExp]>([
    [
      "a missing file",
      ["run", "--input-file", join(dir, "nope.txt")],
      undefined,
      /nope\.txt cannot be read: no such file/,
    ],
    ["a directory", ["run", "--input-file", dir], undefined, /cannot be read: it is a directory/],
    [
      "a file and an argument",
      ["run", "--input-file", join(dir, "prompt.txt"), "hi"],
      undefined,
      /not two of them/,
    ],
    ["an empty stdin", ["run", "-"], "", /the prompt in stdin is empty/],
    [
      "a blank file",
      ["send", "file", "--input-file", join(dir, "blank.txt")],
      undefined,
      /blank\.txt is empty/,
    ],
    ["bytes that are not UTF-8", ["run", "-"], "\u00ff", /not UTF-8 text/],
    ["no prompt at all", ["run"], undefined, /expected one "prompt" \(or - to read it from stdin/],
    ["no message at all", ["send", "file"], undefined, /expected one "message"/],
  ])("%s is a usage error, and nothing is written", async (_, args, stdin, message) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "blank.txt"), " \n");
    const before = await cli(["ls", "--json"], { dir });
    const input = stdin === "\u00ff" ? Buffer.from([0xff, 0xfe]) : stdin;
    const result = await cli(args, { dir, ...(input === undefined ? {} : { stdin: input }) });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.match(/runlog:/g)).toHaveLength(1);
    expect((await cli(["ls", "--json"], { dir })).stdout).toBe(before.stdout);
  });
});
