import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { defineAgent, defineTool } from "../../lib/index.ts";
import {
  createTestRunlog,
  expectReplaysUnchanged,
  ReplayChangedError,
  type TestRunlog,
} from "../../lib/testing/index.ts";

// A user's suite: an agent whose tool has a side effect, two recorded runs, then "do they still pass?"
let ran = 0;
const agents = {
  greeter: defineAgent({
    name: "greeter",
    instructions: "Greet by name.",
    model: "scripted:demo",
    tools: () => [
      defineTool({
        name: "lookup",
        description: "Look a person up.",
        parameters: z.object({ id: z.number() }),
        run: ({ id }) => {
          ran++;
          return `person ${id} is Ada`;
        },
      }),
    ],
  }),
};
const TURNS = [{ toolCalls: [{ name: "lookup", arguments: { id: 7 } }] }, { text: "Hello, Ada." }];
let test: TestRunlog;

beforeAll(async () => {
  test = await createTestRunlog({ agents, script: TURNS });
  await test.runlog.start({ agent: "greeter", input: "greet 7", runId: "greet-1" });
  await test.runlog.start({ agent: "greeter", input: "greet 7", runId: "greet-2" });
});
afterAll(() => test.close());

describe("expectReplaysUnchanged", () => {
  it("passes when the runs replay the same on the model, and runs no tool again", async () => {
    const before = ran;
    const report = await expectReplaysUnchanged({
      dataDir: test.dataDir,
      agents,
      runIds: ["greet-1", "greet-2"],
      model: test.model!,
    });
    expect(report).toMatchObject({ changed: 0, runs: [{ runId: "greet-1" }, { runId: "greet-2" }] });
    expect(ran).toBe(before);
  });

  it("fails naming each changed run and what changed", async () => {
    const path = join(test.dataDir, "other.json");
    writeFileSync(
      path,
      JSON.stringify({ turns: [{ toolCalls: [{ name: "lookup", arguments: { id: 8 } }] }, { text: "Hi." }] }),
    );
    const failing = expectReplaysUnchanged({
      dataDir: test.dataDir,
      agents,
      runIds: ["greet-1"],
      model: `scripted:${path}`,
    });
    await expect(failing).rejects.toThrow(ReplayChangedError);
    await expect(failing).rejects.toThrow(
      /greet-1 \(replayed as greet-1\.replay-[0-9a-f]{8}\):\n {2}answer: "Hello, Ada\." -> "Hi\."\n {2}tool call arguments changed: lookup\(\{"id":7\}\) -> lookup\(\{"id":8\}\)/,
    );
  });
});
