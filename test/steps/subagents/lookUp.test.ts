import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, events, ROOT, runlog, runlogJson, tempDataDir } from "../../support/cli.ts";

// A chain of sub-agents top -> mid -> leaf (agentAsTool at each level); the leaf runs a tool.
const runlogUrl = pathToFileURL(join(ROOT, "dist", "lib", "index.js")).href;
const zodUrl = pathToFileURL(join(ROOT, "node_modules", "zod", "index.js")).href;
const AGENTS = `
import { join } from "node:path";
import { agentAsTool, defineAgent, defineTool } from "${runlogUrl}";
import { z } from "${zodUrl}";

const write = defineTool({ name: "write", description: "Write", parameters: z.object({}), run: async () => "written" });
const model = (name) => "scripted:" + join(import.meta.dirname, name + ".json");
const leaf = defineAgent({ name: "leaf", instructions: "Write.", model: model("leaf"), tools: [write] });
const mid = defineAgent({
  name: "mid",
  instructions: "Ask the leaf.",
  model: model("mid"),
  tools: [agentAsTool(leaf, { name: "ask_leaf", description: "Ask the leaf" })],
});
export const agents = {
  top: defineAgent({
    name: "top",
    instructions: "Ask mid.",
    model: model("top"),
    tools: [agentAsTool(mid, { name: "ask_mid", description: "Ask mid" })],
  }),
};
`;
const turns = (tool: string, args: object, answer: string) => ({
  turns: [{ toolCalls: [{ name: tool, arguments: args }] }, { text: answer, stop: "stop" }],
});

const project = tempDataDir("subagent-chain-project");
const dir = tempDataDir("subagent-chain");
beforeAll(() => {
  writeFileSync(join(project, "agents.ts"), AGENTS);
  writeFileSync(join(project, "top.json"), JSON.stringify(turns("ask_mid", { input: "go" }, "top done")));
  writeFileSync(join(project, "mid.json"), JSON.stringify(turns("ask_leaf", { input: "go" }, "mid done")));
  writeFileSync(join(project, "leaf.json"), JSON.stringify(turns("write", {}, "leaf done")));
});
afterAll(() => Promise.all([cleanup(dir), cleanup(project)]));

describe("looking up the children of a waiting run", () => {
  it("carries a three-level chain on when resuming the top after a crash in the grandchild's tool", async () => {
    const env = { RUNLOG_AGENTS: join(project, "agents.ts") };
    // The third tool start: top's ask_mid, mid's ask_leaf, then the leaf's own tool.
    const killed = await runlog(dir, ["run", "--agent", "top", "--run-id", "t", "go"], {
      ...env,
      RUNLOG_CRASH_AT: "tool:after-start@3",
    });
    expect(killed.code, killed.stderr).toBe(137);
    const leafId = "t.call_0_0.call_0_0";
    expect((await events(dir, leafId)).at(-1)).toMatchObject({ type: "tool_started", name: "write" });

    const resumed = await runlogJson(dir, ["resume", "t"], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await events(dir, "t")).at(-1)).toMatchObject({ type: "model_response", text: "top done" });
    const listed = await runlogJson<{ runs: { runId: string; status: string }[] }>(dir, ["ls"], env);
    expect(Object.fromEntries(listed.json.runs.map((r) => [r.runId, r.status]))).toEqual({
      t: "completed",
      "t.call_0_0": "completed",
      [leafId]: "completed",
    });
    // The leaf's tool was answered as interrupted, never run again on its own.
    const leaf = await events(dir, leafId);
    expect(leaf.filter((e) => e.type === "tool_started")).toHaveLength(1);
    expect(leaf.find((e) => e.type === "tool_result")).toMatchObject({ isError: true });
  });
});
