import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadScript, MAX_SCRIPT_BYTES } from "../../../lib/adapters/scripted/script.ts";
import { InvalidInputError } from "../../../lib/core/errors.ts";

/** The files an attacker names as `scripted:FILE` to read, hang or exhaust the server (issue 24). */
const dir = mkdtempSync(join(tmpdir(), "runlog-script-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = "s3cr3t-line-of-the-file";

function refusal(path: string): InvalidInputError {
  const started = Date.now();
  let caught: unknown;
  try {
    loadScript(path);
  } catch (error) {
    caught = error;
  }
  // A FIFO would block a plain open until a writer came: this returns, so it did not block.
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(caught).toBeInstanceOf(InvalidInputError);
  return caught as InvalidInputError;
}

describe("loadScript refuses what is not a script file, quoting nothing of it", () => {
  it("/etc/passwd: not JSON, named by line and column, none of its text", () => {
    const error = refusal("/etc/passwd");
    expect(error.message).toMatch(
      /^scripted model: script \/etc\/passwd is not valid JSON at line 1, column \d+$/,
    );
    expect(error.message).not.toContain("root");
  });

  it("a JSON syntax error deep in a file names line and column, not the text there", () => {
    const path = join(dir, "secret.json");
    writeFileSync(path, `{\n  "turns": [\n    ${SECRET}\n  ]\n}\n`);
    const error = refusal(path);
    expect(error.message).toBe(`scripted model: script ${path} is not valid JSON at line 3, column 5`);
    expect(error.cause).toBeUndefined();
  });

  it("an unknown key is not quoted either", () => {
    const path = join(dir, "key.json");
    writeFileSync(path, JSON.stringify({ turns: [{ text: "a" }], [SECRET]: 1 }));
    expect(refusal(path).message).not.toContain(SECRET);
  });

  it("a FIFO, without waiting for a writer", () => {
    const path = join(dir, "fifo");
    execFileSync("mkfifo", [path]);
    expect(refusal(path).message).toBe(`scripted model: cannot read script ${path}: not a regular file`);
  });

  it("/dev/zero, without reading it", () => {
    expect(refusal("/dev/zero").message).toBe(
      "scripted model: cannot read script /dev/zero: not a regular file",
    );
  });

  it("a directory", () => {
    const path = join(dir, "a-dir");
    mkdirSync(path);
    expect(refusal(path).message).toBe(`scripted model: cannot read script ${path}: not a regular file`);
  });

  it("a file over 8 MiB (9 MiB, sparse)", () => {
    const path = join(dir, "big.json");
    writeFileSync(path, "");
    truncateSync(path, 9 * 1024 * 1024);
    expect(refusal(path).message).toBe(
      `scripted model: cannot read script ${path}: larger than ${MAX_SCRIPT_BYTES} bytes`,
    );
  });

  it("a file of exactly 8 MiB is read (the cap is inclusive)", () => {
    const path = join(dir, "at-cap.json");
    const body = JSON.stringify({ turns: [{ text: "ok" }] });
    writeFileSync(path, body + " ".repeat(MAX_SCRIPT_BYTES - body.length));
    expect(loadScript(path)).toEqual({ turns: [{ text: "ok" }] });
  });
});
