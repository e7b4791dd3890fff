import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "../cli/support.ts";
import { cleanup, ROOT, script, spawnNode, storeEnv, tempDataDir, testEnv } from "../support/cli.ts";

const FIXTURE = join(import.meta.dirname, "fixtures", "manyToolCalls.ts");
const dir = tempDataDir("warnings");
afterAll(() => cleanup(dir));

/** Run a file in a child Node with tsx, as a user's program importing runlog would run. */
const node = (args: string[]) =>
  spawnNode(["--import", "tsx", ...args], { cwd: ROOT, env: testEnv(storeEnv(dir)) });

describe("a long local run prints no warning", () => {
  it("through the library: 40 parallel tool calls, then 30 turns", async () => {
    const result = await node([FIXTURE, "40", "30"]);
    expect(result.stdout).toBe("completed\n");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  it("through the CLI: the same batch and turns with the demo agent", async () => {
    const calls = Array.from({ length: 40 }, (_, n) => ({
      name: "get_weather",
      arguments: { city: `City ${n}` },
    }));
    const model = script(dir, "many", [
      { toolCalls: calls },
      ...Array.from({ length: 30 }, () => ({ toolCalls: [calls[0]] })),
      { text: "done", stop: "stop" },
    ]);
    const result = await cli(["run", "--model", model, "go", "--json"], { dir, env: storeEnv(dir) });
    expect(result.code).toBe(0);
    expect(result.stderr.split("\n").filter((line) => !/^\d\d:\d\d:\d\d\.\d{3} {2}run_/.test(line))).toEqual([
      "",
    ]);
  });
});
