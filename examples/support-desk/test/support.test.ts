import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createTestRunlog, scriptedCallId, type TestRunlog } from "runlog/testing";
import { afterEach, describe, expect, it } from "vitest";
import { agents, models } from "../src/agents.ts";

let t: TestRunlog | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const lookup = { name: "lookup_order", arguments: { orderId: "A-1002" } };
const refund = (amount: number) => ({
  name: "issue_refund",
  arguments: { orderId: "A-1002", amount, reason: "lamp arrived broken" },
});
const refunds = (dataDir: string) =>
  readFileSync(join(dataDir, "refunds.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));

describe("the support agent", () => {
  it("refunds a small amount without asking anyone", async () => {
    t = await createTestRunlog({
      agents,
      script: [{ toolCalls: [lookup] }, { toolCalls: [refund(15)] }, { text: "Refunded 15." }],
    });
    const outcome = await t.runlog.start({ agent: "support", input: "refund 15 on A-1002" });
    expect(outcome).toMatchObject({ status: "completed", output: "Refunded 15." });
    expect(refunds(t.dataDir)).toEqual([{ orderId: "A-1002", amount: 15, reason: "lamp arrived broken" }]);
  });

  it("waits for a person before a larger refund, and runs it once approved", async () => {
    t = await createTestRunlog({
      agents,
      script: [{ toolCalls: [lookup] }, { toolCalls: [refund(85)] }, { text: "Refunded 85." }],
    });
    const paused = await t.runlog.start({ agent: "support", input: "refund all of A-1002" });
    expect(paused.status).toBe("paused");
    const point = await t.runlog.resumePoint(paused.runId);
    expect(point).toMatchObject({ resumable: false, reason: "awaiting_approval" });
    const callId = scriptedCallId(1, 0);
    const done = await t.runlog.approve(paused.runId, callId, { by: "tester" });
    expect(done).toMatchObject({ status: "completed", output: "Refunded 85." });
    expect(refunds(t.dataDir)).toHaveLength(1);
  });

  it("tells the model when a refund is refused, and refunds nothing", async () => {
    t = await createTestRunlog({
      agents,
      script: [{ toolCalls: [refund(900)] }, { text: "I cannot refund more than was paid." }],
    });
    const paused = await t.runlog.start({ agent: "support", input: "refund 900 on A-1002" });
    const done = await t.runlog.reject(paused.runId, scriptedCallId(0, 0), {
      by: "tester",
      reason: "too much",
    });
    expect(done.status).toBe("completed");
    const results = (await t.events(paused.runId)).filter((event) => event.type === "tool_result");
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ isError: true });
  });
});

describe("the project's own model", () => {
  it("runs the agent on shop:desk, a provider of ten lines", async () => {
    t = await createTestRunlog({ agents, models });
    const outcome = await t.runlog.start({ agent: "support", input: "Where is A-1002?", model: "shop:desk" });
    expect(outcome).toMatchObject({
      status: "completed",
      output: 'desk here: we got "Where is A-1002?" and will write back within a day.',
    });
  });
});
