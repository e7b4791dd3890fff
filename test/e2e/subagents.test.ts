import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { agentAsTool, defineAgent, type RunEvent } from "../../lib/index.ts";
import { createTestRunlog, type ScriptTurn, type TestRunlog } from "../../lib/testing/index.ts";

const dir = mkdtempSync(join(tmpdir(), "subagents-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A `scripted:` spec playing these turns. */
function scripted(name: string, turns: ScriptTurn[]): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ turns }));
  return `scripted:${path}`;
}

function agents(childTurns: ScriptTurn[], parentTurns?: ScriptTurn[]) {
  const researcher = defineAgent({
    name: "researcher",
    instructions: "Find things out.",
    model: scripted(`researcher-${Math.random()}`, childTurns),
  });
  const triage = defineAgent({
    name: "triage",
    instructions: "Ask the researcher.",
    model: scripted(
      `triage-${Math.random()}`,
      parentTurns ?? [
        { toolCalls: [{ name: "research", arguments: { input: "How tall is the Eiffel tower?" } }] },
        { text: "The researcher says: 330 m.", stop: "stop" },
      ],
    ),
    tools: [agentAsTool(researcher, { name: "research", description: "Ask the researcher a question" })],
  });
  return { triage };
}

let opened: TestRunlog | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

const resultsOf = (log: RunEvent[], callId: string) =>
  log.filter((e) => e.type === "tool_result" && e.callId === callId);

describe("a sub-agent as a tool, on the local runtime", () => {
  it("starts one child run, takes its final answer as the call's result, and completes", async () => {
    opened = await createTestRunlog({ agents: agents([{ text: "It is 330 m tall.", stop: "stop" }]) });
    const result = await opened.runlog.start({ agent: "triage", input: "Eiffel?", runId: "p1" });
    expect(result).toMatchObject({ runId: "p1", status: "completed", output: "The researcher says: 330 m." });

    const log = await opened.events("p1");
    expect(log.find((e) => e.type === "tool_started")).toMatchObject({
      callId: "call_0_0",
      child: "p1.call_0_0",
    });
    expect(resultsOf(log, "call_0_0")).toEqual([
      expect.objectContaining({ content: "It is 330 m tall.", isError: false }),
    ]);
    const child = await opened.events("p1.call_0_0");
    expect(child[0]).toMatchObject({
      type: "run_started",
      agent: "researcher",
      input: "How tall is the Eiffel tower?",
      parent: { runId: "p1", callId: "call_0_0" },
    });
    const parentStart = log[0] as Extract<RunEvent, { type: "run_started" }>;
    expect((child[0] as typeof parentStart).owner).toEqual(parentStart.owner);
    expect(child.at(-1)).toMatchObject({ type: "model_response", stop: "stop" });

    const children = await opened.runlog.list({ childrenOf: "p1" });
    expect(children.runs.map((r) => [r.runId, r.status])).toEqual([["p1.call_0_0", "completed"]]);
  });

  it("answers the call with an error saying how the child ended when it does not complete", async () => {
    opened = await createTestRunlog({
      agents: agents([{ text: "I can't help with that.", stop: "refusal" }]),
    });
    const result = await opened.runlog.start({ agent: "triage", input: "Eiffel?", runId: "p2" });
    expect(result.status).toBe("completed");
    const [answer] = resultsOf(await opened.events("p2"), "call_0_0");
    expect(answer).toMatchObject({ isError: true, content: expect.stringContaining("ended refused") });
  });

  it("cancelling a waiting parent cancels its running child, and both end cancelled", async () => {
    const dataDir = mkdtempSync(join(dir, "cancel-"));
    opened = await createTestRunlog({
      agents: agents([{ text: "slow answer", stop: "stop", delayMs: 60_000 }]),
      background: true,
      dataDir,
    });
    await opened.runlog.start({ agent: "triage", input: "Eiffel?", runId: "p3" });
    // The child exists once the parent's call started it; the parent then rests waiting.
    for (let i = 0; i < 200; i++) {
      const [child] = (await opened.runlog.list({ childrenOf: "p3" })).runs;
      if (child?.status === "running") break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await opened.runlog.cancel("p3", { by: "tester" });
    await opened.close();
    const reopened = await createTestRunlog({ agents: agents([]), dataDir });
    opened = reopened;
    expect((await reopened.runlog.list({ childrenOf: "p3" })).runs.map((r) => r.status)).toEqual([
      "cancelled",
    ]);
    const child = await reopened.events("p3.call_0_0");
    expect(child.at(-1)).toMatchObject({ type: "cancelled", reason: "its parent run p3 was cancelled" });
    const parent = await reopened.events("p3");
    expect(parent.at(-1)).toMatchObject({ type: "cancelled" });
    expect(parent.filter((e) => e.type === "tool_result")).toEqual([]);
  });
});
