import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { defineAgent, defineTool, type Model } from "../../lib/index.ts";
import { createTestRunlog } from "../../lib/testing/index.ts";
import { type InProcessDynalite, startDynalite } from "../support/dynalite.ts";

// After a transfer the run goes on under another agent: listings (the head) name that agent, on
// the SQLite store and on the DynamoDB adapter alike (where `agent` is a reserved word).

const refund = defineTool({
  name: "refund",
  description: "Refund an order.",
  parameters: z.object({ order: z.string() }),
  run: ({ order }) => `refunded ${order}`,
});
const triage = defineAgent({
  name: "triage",
  description: "Answers first and routes.",
  instructions: "You are triage.",
  model: "plan:triage",
  handoffs: ["billing"],
});
const billing = defineAgent({
  name: "billing",
  description: "Handles refunds.",
  instructions: "You are billing.",
  model: "plan:billing",
  tools: [refund],
});

/** Transfers to billing when the input asks for a refund, else answers; billing refunds and answers. */
const plan = (name: string): Model => ({
  spec: `plan:${name}`,
  async call(request) {
    const usage = { inputTokens: 1, outputTokens: 1 };
    const input = String(request.messages[0]?.content ?? "");
    const asked = request.messages.filter((m) => m.role === "assistant").length;
    if (name === "triage" && input.includes("refund") && asked === 0)
      return {
        text: "",
        toolCalls: [{ id: "t1", name: "transfer_to_billing", arguments: "{}" }],
        stop: "tool_calls",
        usage,
      };
    if (name === "billing" && asked === 1)
      return {
        text: "",
        toolCalls: [{ id: "r1", name: "refund", arguments: '{"order":"42"}' }],
        stop: "tool_calls",
        usage,
      };
    return { text: `${name} done`, toolCalls: [], stop: "stop", usage };
  },
});

let dynalite: InProcessDynalite;
beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(() => dynalite.stop());

describe.each([
  ["SQLite", () => ({})],
  ["the DynamoDB adapter on dynalite", () => dynalite.env({ RUNLOG_TABLE: "transfer-listing" })],
])("the listing after a transfer, on %s", (_store, env) => {
  it("names the agent in charge, and the run that was not transferred its own", async () => {
    const opened = await createTestRunlog({
      agents: { triage, billing },
      models: { plan },
      env: env(),
    });
    try {
      const { runlog } = opened;
      const moved = await runlog.start({ agent: "triage", input: "a refund for order 42", runId: "moved" });
      expect(moved).toMatchObject({ status: "completed", output: "billing done" });
      const stayed = await runlog.start({ agent: "triage", input: "hello", runId: "stayed" });
      expect(stayed).toMatchObject({ status: "completed", output: "triage done" });

      const { runs } = await runlog.list();
      const agents = Object.fromEntries(runs.map((run) => [run.runId, [run.agent, run.status]]));
      expect(agents).toEqual({ moved: ["billing", "completed"], stayed: ["triage", "completed"] });
      // The log still says who started it.
      expect(await runlog.event("moved", 1)).toMatchObject({ type: "run_started", agent: "triage" });
    } finally {
      await opened.close();
    }
  });
});
