import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type CliResult,
  cleanup,
  events,
  notes,
  ROOT,
  storeEnv,
  tempDataDir,
  testEnv,
} from "../support/cli.ts";
import { fences, readDoc } from "../support/docs.ts";

/**
 * docs/getting-started.md, run as a reader runs it: every command of its `sh offline` blocks, in
 * order, through `sh`, in one fresh directory, with `npx runlog` being the built bin. Each
 * command must exit as its comment says (`# exit 3`), else 0; then the outcomes the page
 * describes are checked in the runs it left behind.
 */
const PAGE = "docs/getting-started.md";

interface Command {
  text: string;
  exit: number;
}

/** The page's offline commands: one per line, a heredoc with the lines up to its end marker. */
function offlineCommands(): Command[] {
  const blocks = fences(readDoc(PAGE)).filter(({ info }) => info === "sh offline");
  const commands: Command[] = [];
  for (const { code } of blocks) {
    const lines = code.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.trim() === "" || line.trim().startsWith("#")) continue;
      const heredoc = /<<'?(\w+)'?/.exec(line)?.[1];
      let text = line;
      if (heredoc) {
        const end = lines.indexOf(heredoc, i + 1);
        if (end < 0) throw new Error(`${PAGE}: heredoc ${heredoc} has no end`);
        text = lines.slice(i, end + 1).join("\n");
        i = end;
      }
      const exit = Number(/#\s*exit (\d+)/.exec(line)?.[1] ?? 0);
      commands.push({ text, exit });
    }
  }
  return commands;
}

/** A directory whose `npx` runs the built bin for `npx runlog …` and refuses anything else. */
function npxShim(dir: string): string {
  const bin = join(dir, ".shim");
  mkdirSync(bin);
  const npx = join(bin, "npx");
  writeFileSync(
    npx,
    [
      "#!/bin/sh",
      '[ "$1" = runlog ] || { echo "this test runs only npx runlog, not npx $1" >&2; exit 127; }',
      "shift",
      `exec "${process.execPath}" "${join(ROOT, "bin", "runlog.js")}" "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(npx, 0o755);
  return bin;
}

/** Run one command in `cwd`, on the store of its default data dir (`./.runlog`, as the page says). */
function sh(command: string, cwd: string, path: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const { RUNLOG_DIR: _, ...env } = testEnv(storeEnv(join(cwd, ".runlog")));
    const child = spawn("sh", ["-c", command], {
      cwd,
      env: { ...env, PATH: `${path}:${env.PATH ?? ""}` },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 128, stdout, stderr }));
  });
}

const cwd = tempDataDir("getting-started");
const data = join(cwd, ".runlog");
afterAll(() => cleanup(data));

describe(`${PAGE}, run as written`, () => {
  const commands = offlineCommands();
  const results: CliResult[] = [];

  it("has commands to run, each of them runlog's or a file's", () => {
    expect(commands.length).toBeGreaterThanOrEqual(10);
    for (const { text } of commands) expect(text).toMatch(/^(\w+=\S+ )*(npx runlog |cat )/);
  });

  // The README's sixty seconds are a shorter walk through the same commands; serve runs until stopped.
  it("tests the README's offline commands too", () => {
    const section = readDoc("README.md").split("## Sixty seconds, offline")[1] ?? "";
    const block = fences(section)[0]?.code ?? "";
    const readme = block
      .split("\n")
      .map((line) => line.replace(/\s+#.*$/, "").trim())
      .filter((line) => line !== "" && !line.startsWith("npx runlog serve"));
    expect(readme.length).toBeGreaterThanOrEqual(4);
    const tested = commands.map(({ text }) => text.replace(/\s+#.*$/, "").trim());
    for (const line of readme) expect(tested).toContain(line);
  });

  it("runs every command, each exiting as the page says", async () => {
    const path = npxShim(cwd);
    for (const { text, exit } of commands) {
      const result = await sh(text, cwd, path);
      results.push(result);
      expect(result.code, `${text}\n${result.stdout}\n${result.stderr}`).toBe(exit);
    }
  }, 120_000);

  it("leaves the runs the page describes", async () => {
    expect(results).toHaveLength(commands.length);
    // The demo: its own runs, and its story ends with every note written once.
    expect(existsSync(join(data, "demo"))).toBe(true);
    expect(results[0]!.stdout).toContain("written once");

    const last = async (runId: string) => (await events(data, runId)).at(-1);
    expect(await last("day-out")).toMatchObject({ type: "model_response", stop: "stop" });
    expect((await events(data, "day-out")).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

    // Killed after its first note, resumed: that call answered as interrupted, each note once.
    const crashed = await events(data, "crashed");
    expect(crashed.filter((e) => e.type === "resumed")).toHaveLength(1);
    // The crash came as the first of the batch's two parallel notes finished: that call is answered
    // as interrupted, and so is the other if it had started by then (a race), else it ran on resume.
    const interrupted = crashed.filter((e) => e.type === "tool_result" && e.interrupted);
    expect(interrupted.length).toBeGreaterThanOrEqual(1);
    expect(interrupted.length).toBeLessThanOrEqual(2);
    expect(crashed.at(-1)).toMatchObject({ type: "model_response", stop: "stop" });
    const counts = new Map<string, number>();
    for (const note of notes(data)) counts.set(note, (counts.get(note) ?? 0) + 1);
    // day-out and the fork day-out-2 each wrote the two notes once; crashed wrote each at most once
    // (a call answered as interrupted may have died before its note): never a note run twice.
    expect([...counts.keys()].sort()).toEqual(["Book a table by the river", "Pack sunglasses"]);
    for (const count of counts.values()) expect([2, 3]).toContain(count);
    expect(counts.get("Pack sunglasses")! + counts.get("Book a table by the river")!).toBeGreaterThanOrEqual(
      4 + (2 - interrupted.length),
    );

    // Paused for approval, approved, sent once.
    const lunch = await events(data, "lunch");
    expect(lunch.find((e) => e.type === "tool_decided")).toMatchObject({ approved: true, reason: "fine" });
    expect(readFileSync(join(data, "outbox.txt"), "utf8")).toBe("ana@example.com|Lunch\n");

    // The fork names its parent, and the parent is unchanged.
    expect((await events(data, "day-out-2"))[0]).toMatchObject({
      type: "run_started",
      parent: { runId: "day-out", seq: 4 },
    });
    expect(await events(data, "day-out")).toHaveLength(10);
    expect(results.at(-1)!.stdout).toContain("day-out-2");
  });
});
