import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { RunStarted } from "../../../lib/core/events.ts";
import { DEFAULT_MAX_SUBAGENT_DEPTH } from "../../../lib/core/subagents.ts";
import { type AgentFactory, agentAsTool, defineAgent, type ModelRequest } from "../../../lib/index.ts";
import { subagentDepth } from "../../../lib/steps/subagents/depth.ts";
import { createTestRunlog, type TestRunlog } from "../../../lib/testing/index.ts";
import { testEnv } from "../../support/cli.ts";
import { connectStore } from "../../support/store.ts";

/**
 * Sub-agent runs nest no deeper than their tool's `maxDepth` (8 by default): an agent that calls
 * itself as a sub-agent, whose model calls it on every new message, makes a chain that ends there,
 * its deepest call answered with an error the model goes on from. The depth is read from the
 * parents' `run_started` events, so a process that did not make the chain finds the same.
 */

const dir = mkdtempSync(join(tmpdir(), "subagent-depth-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Calls its sub-agent after each user message; answers with what the call gave once it has a result. */
const models = {
  rec: () => ({
    spec: "rec:x",
    call: async (request: ModelRequest) => {
      const last = request.messages.at(-1)!;
      if (last.role === "tool") {
        return { text: `done after: ${last.content.slice(0, 40)}`, toolCalls: [], stop: "stop" as const };
      }
      const call = { id: `c${request.turn}`, name: "again", arguments: '{"input":"deeper"}' };
      return { text: "", toolCalls: [call], stop: "tool_calls" as const };
    },
  }),
};

function selfCalling(maxDepth?: number): AgentFactory {
  const self: AgentFactory = defineAgent({
    name: "self",
    instructions: "Call yourself.",
    model: "rec:x",
    limits: { maxTurns: 4 },
    tools: () => [
      agentAsTool(self, {
        name: "again",
        description: "Call myself",
        ...(maxDepth === undefined ? {} : { maxDepth }),
      }),
    ],
  });
  return self;
}

/** The chain of child ids under `root`: root.c0, root.c0.c0, … `levels` deep. */
const chain = (root: string, levels: number) =>
  Array.from({ length: levels + 1 }, (_, depth) => [root, ...Array(depth).fill("c0")].join("."));

let opened: TestRunlog | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

describe("an agent that calls itself as a sub-agent", () => {
  it("nests at most DEFAULT_MAX_SUBAGENT_DEPTH runs deep, and every run of the chain completes", async () => {
    opened = await createTestRunlog({ agents: { self: selfCalling() }, models });
    const outcome = await opened.runlog.start({ agent: "self", input: "go", runId: "rec" });
    expect(outcome.status).toBe("completed");
    const runs = (await opened.runlog.list({ limit: 1000 })).runs;
    expect(runs.map((r) => r.runId).sort()).toEqual(chain("rec", DEFAULT_MAX_SUBAGENT_DEPTH).sort());
    expect(runs.every((r) => r.status === "completed")).toBe(true);
    // The deepest run's call started nothing: it was answered with an error naming the bound.
    const deepest = await opened.events(chain("rec", DEFAULT_MAX_SUBAGENT_DEPTH).at(-1)!);
    expect(deepest.some((e) => e.type === "tool_started")).toBe(false);
    expect(deepest.find((e) => e.type === "tool_result")).toMatchObject({
      name: "again",
      isError: true,
      content: expect.stringContaining(
        `starts none deeper than ${DEFAULT_MAX_SUBAGENT_DEPTH} (its maxDepth)`,
      ),
    });
  });

  it("takes its tool's maxDepth, and a process that did not make the chain keeps to it", async () => {
    const dataDir = mkdtempSync(join(dir, "bound-"));
    opened = await createTestRunlog({ agents: { self: selfCalling(2) }, models, dataDir });
    expect(await opened.runlog.start({ agent: "self", input: "go", runId: "r" })).toMatchObject({
      status: "completed",
    });
    const ids = chain("r", 2);
    expect((await opened.runlog.list({ limit: 100 })).runs.map((r) => r.runId).sort()).toEqual(ids.sort());
    await opened.close();

    // A new process: the deepest run's depth is read up its parents' logs in the store.
    const { store, close } = await connectStore({ dataDir, env: testEnv() });
    const first = (await store.read("r.c0.c0"))[0] as RunStarted;
    expect(await subagentDepth(store, first, 8)).toBe(2);
    expect(await subagentDepth(store, first, 1)).toBe(2);
    await close();

    opened = await createTestRunlog({ agents: { self: selfCalling(2) }, models, dataDir });
    // A message to the deepest run makes its model call the sub-agent again: refused again.
    const sent = await opened.runlog.send("r.c0.c0", "once more");
    expect(sent.status).toBe("completed");
    expect((await opened.runlog.list({ limit: 100 })).runs).toHaveLength(3);
    const results = (await opened.events("r.c0.c0")).filter((e) => e.type === "tool_result");
    expect(results).toHaveLength(2);
    expect(results.every((e) => e.type === "tool_result" && e.isError)).toBe(true);
  });
});
