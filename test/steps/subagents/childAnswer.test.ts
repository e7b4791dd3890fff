import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { childAnswer } from "../../../lib/core/subagents.ts";
import { agentAsTool, defineAgent, type ModelRequest } from "../../../lib/index.ts";
import { createTestRunlog } from "../../../lib/testing/index.ts";
import { testEnv } from "../../support/cli.ts";
import { connectStore } from "../../support/store.ts";

/**
 * A child's structured output reaches its parent as the same text whichever way it was read: from
 * the value this process holds (zod's key order) or from the store (keys sorted), as after a crash.
 */

const dir = mkdtempSync(join(tmpdir(), "child-answer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const models = {
  k: () => ({
    spec: "k:x",
    call: async (request: ModelRequest) => {
      if (request.instructions === "child")
        return { text: '{"zeta":1,"alpha":2}', toolCalls: [], stop: "stop" as const };
      if (request.messages.at(-1)!.role === "tool")
        return { text: "parent done", toolCalls: [], stop: "stop" as const };
      const call = { id: "ask", name: "ask_child", arguments: '{"input":"numbers"}' };
      return { text: "", toolCalls: [call], stop: "tool_calls" as const };
    },
  }),
};
const child = defineAgent({
  name: "child",
  instructions: "child",
  model: "k:x",
  output: z.object({ zeta: z.number(), alpha: z.number() }),
});
const parent = defineAgent({
  name: "parent",
  instructions: "parent",
  model: "k:x",
  tools: [agentAsTool(child, { name: "ask_child", description: "Ask the child" })],
});

describe("a sub-agent's structured output as its parent reads it", () => {
  it("is the same text from this process as from the store", async () => {
    const dataDir = mkdtempSync(join(dir, "run-"));
    const opened = await createTestRunlog({ agents: { parent }, models, dataDir });
    expect(await opened.runlog.start({ agent: "parent", input: "go", runId: "p" })).toMatchObject({
      status: "completed",
    });
    const answered = (await opened.events("p")).find((e) => e.type === "tool_result");
    await opened.close();

    const { store, close } = await connectStore({ dataDir, env: testEnv() });
    const fromStore = childAnswer("p.ask", { events: await store.read("p.ask") });
    await close();
    expect(fromStore).toEqual({ content: '{"alpha":2,"zeta":1}', isError: false });
    expect(answered).toMatchObject({ content: fromStore!.content, isError: false });
  });
});
