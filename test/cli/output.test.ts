import { afterAll, describe, expect, it, vi } from "vitest";
import { processIo } from "../../lib/cli/io.ts";
import { cleanup, runlogJson, script, tempDataDir } from "../support/cli.ts";
import { cli } from "./support.ts";

const dir = tempDataDir("cli-output");
afterAll(() => cleanup(dir));

describe("output larger than a pipe holds", () => {
  it("show --json of a run of several hundred KB arrives whole on a pipe", async () => {
    // Several events of ~100 KB each: the JSON is far past the 64 KB a pipe buffers.
    const long = (n: number) => `${n}:${"lorem ipsum dolor sit amet ".repeat(4_000)}`;
    const turns = [
      { toolCalls: [{ name: "get_weather", arguments: { city: long(1) } }] },
      { toolCalls: [{ name: "get_weather", arguments: { city: long(2) } }] },
      { text: long(3), stop: "stop" },
    ];
    const model = script(dir, "long", turns);
    const run = await runlogJson(dir, ["run", "--run-id", "long", "--model", model, "go"]);
    expect(run.json).toMatchObject({ status: "completed" });

    const shown = await cli(["show", "long", "--json"], { dir });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.bytes.length).toBeGreaterThan(400_000);
    const json = JSON.parse(shown.stdout) as { events: { seq: number }[] };
    expect(json.events.at(-1)?.seq).toBe(json.events.length);

    // The same for the human form, and for a command whose output is not JSON.
    const human = await cli(["show", "long"], { dir });
    expect(human.code).toBe(0);
    expect(human.stdout.trimEnd().split("\n")).toHaveLength(json.events.length);
  });

  it("a failing command's message and exit code arrive too", async () => {
    const failed = await cli(["show", "no-such-run"], { dir });
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/^runlog: run no-such-run not found\n$/);
  });
});

describe("processIo.lines", () => {
  it("writes the bytes a write a line would, in one write", () => {
    const lines = ["#1  plain", "#2  a \u001b[2J clear, a \r\n and a lone \ud800", "", "#4  last"];
    const writes: string[] = [];
    const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      writes.push(String(chunk));
      return true;
    });
    try {
      for (const line of lines) processIo.out(line);
      const oneByOne = writes.splice(0);
      expect(oneByOne).toHaveLength(lines.length);
      processIo.lines(lines);
      expect(writes).toEqual([oneByOne.join("")]);
      expect(writes[0]).not.toContain("\u001b");
      writes.length = 0;
      processIo.lines([]);
      expect(writes).toEqual([]);
    } finally {
      write.mockRestore();
    }
  });
});
