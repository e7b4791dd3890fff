import { afterEach, describe, expect, it } from "vitest";
import { agentAsTool, defineAgent, type ModelRequest } from "../../../lib/index.ts";
import { createTestRunlog, type TestRunlog } from "../../../lib/testing/index.ts";

/** An agent the registry reaches only through agentAsTool can be handed to, as it can be started. */

const models = {
  h: () => ({
    spec: "h:x",
    call: async (request: ModelRequest) => {
      if (request.instructions === "a") return { text: "a answers", toolCalls: [], stop: "stop" as const };
      const call = { id: "t", name: "transfer_to_a", arguments: "{}" };
      return { text: "", toolCalls: [call], stop: "tool_calls" as const };
    },
  }),
};
const a = defineAgent({ name: "a", instructions: "a", model: "h:x", description: "Answers." });
const d = defineAgent({
  name: "d",
  instructions: "d",
  model: "h:x",
  handoffs: ["a"],
  tools: [agentAsTool(a, { name: "ask_a", description: "Ask a" })],
});

let opened: TestRunlog | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

describe("a handoff to an agent registered only as a sub-agent", () => {
  it("opens, transfers the run, and the agent handed to answers", async () => {
    opened = await createTestRunlog({ agents: { d }, models });
    const outcome = await opened.runlog.start({ agent: "d", input: "hi", runId: "h" });
    expect(outcome).toMatchObject({ status: "completed", output: "a answers" });
    expect((await opened.events("h")).find((e) => e.type === "transferred")).toMatchObject({
      from: "d",
      to: "a",
    });
  });
});
