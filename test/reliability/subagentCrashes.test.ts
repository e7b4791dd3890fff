import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, events, ROOT, runlog, runlogJson, type ShownEvent, tempDataDir } from "../support/cli.ts";

// A triage agent that asks a researcher (agentAsTool) once, then answers: the user's agents
// module, importing the built package as an installed `runlog` would resolve.
const runlogUrl = pathToFileURL(join(ROOT, "dist", "lib", "index.js")).href;
const AGENTS = `
import { join } from "node:path";
import { agentAsTool, defineAgent } from "${runlogUrl}";

const researcher = defineAgent({
  name: "researcher",
  instructions: "Find things out.",
  model: "scripted:" + join(import.meta.dirname, "researcher.json"),
});

export const agents = {
  triage: defineAgent({
    name: "triage",
    instructions: "Ask the researcher.",
    model: "scripted:" + join(import.meta.dirname, "triage.json"),
    tools: [agentAsTool(researcher, { name: "research", description: "Ask the researcher" })],
  }),
};
`;
const TRIAGE = {
  turns: [
    { toolCalls: [{ name: "research", arguments: { input: "How tall is the Eiffel tower?" } }] },
    { text: "The researcher says: 330 m.", stop: "stop" },
  ],
};
const RESEARCHER = { turns: [{ text: "It is 330 m tall.", stop: "stop" }] };

const project = tempDataDir("subagent-project");
beforeAll(() => {
  writeFileSync(join(project, "agents.ts"), AGENTS);
  writeFileSync(join(project, "triage.json"), JSON.stringify(TRIAGE));
  writeFileSync(join(project, "researcher.json"), JSON.stringify(RESEARCHER));
});

const CHILD = "p.call_0_0";

/**
 * Where a kill lands, in the order a run passes them: the parent's sub-agent call written
 * (`tool_started` naming the child, no child yet); the child's `run_started` written, not executed;
 * the child's final answer written, its parent not told; the parent's call answered, the parent not
 * resumed. The parent's own first model turn is append 1, the child's final answer append 2.
 */
const POINTS = [
  ["after the parent's tool call is written", "tool:after-start"],
  ["after the child's run_started", "subagent:after-child-start"],
  ["after the child's final answer", "model:after-append@2"],
  ["after the parent's tool result", "subagent:after-answer"],
] as const;

describe.each(POINTS)("killed %s (%s)", (_, crashAt) => {
  const dir = tempDataDir(`subagent-${crashAt.replace(/\W/g, "-")}`);
  const env = { RUNLOG_AGENTS: join(project, "agents.ts") };
  afterAll(() => cleanup(dir));

  it("converges on exactly one child run and one tool result, and the parent completes", async () => {
    const killed = await runlog(dir, ["run", "--agent", "triage", "--run-id", "p", "Eiffel?"], {
      ...env,
      RUNLOG_CRASH_AT: crashAt,
    });
    expect(killed.code, killed.stderr).toBe(137);

    const resumed = await runlogJson(dir, ["resume", "p"], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.json).toMatchObject({
      runId: "p",
      status: "completed",
      output: "The researcher says: 330 m.",
    });
    // Resuming again changes nothing: the run is complete, its child too.
    const again = await runlogJson(dir, ["resume", "p"], env);
    expect(again.json).toMatchObject({ runId: "p", status: "completed" });

    const parent = await events(dir, "p");
    expect(parent.map((e) => e.seq)).toEqual(parent.map((_, i) => i + 1));
    expect(parent.filter((e) => e.type === "tool_started")).toEqual([
      expect.objectContaining({ callId: "call_0_0", child: CHILD }),
    ]);
    expect(resultsOf(parent)).toEqual([
      expect.objectContaining({ callId: "call_0_0", content: "It is 330 m tall.", isError: false }),
    ]);
    expect(parent.at(-1)).toMatchObject({ type: "model_response", stop: "stop" });

    const child = await events(dir, CHILD);
    expect(child.filter((e) => e.type === "run_started")).toHaveLength(1);
    expect(child[0]).toMatchObject({ parent: { runId: "p", callId: "call_0_0" } });
    // The child answered once: one final answer, never a second model turn.
    expect(child.filter((e) => e.type === "model_response")).toHaveLength(1);

    const listed = await runlogJson<{ runs: { runId: string; status: string }[] }>(
      dir,
      ["ls", "--children-of", "p"],
      env,
    );
    expect(listed.json.runs.map((r) => [r.runId, r.status])).toEqual([[CHILD, "completed"]]);
  });
});

const resultsOf = (log: ShownEvent[]) => log.filter((e) => e.type === "tool_result");
