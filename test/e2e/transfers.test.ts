import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import {
  defineAgent,
  defineTool,
  InvalidInputError,
  type Model,
  type ModelReply,
  type ModelRequest,
} from "../../lib/index.ts";
import { createTestRunlog, type TestRunlog } from "../../lib/testing/index.ts";
import { cleanup, events, ROOT, runlog, runlogJson, script, tempDataDir } from "../support/cli.ts";

// An agent's `handoffs` (called "transfers" in code: "handoff" already names an execution handing a
// long run to the next one). Runs of a triage agent that hands a refund to billing.

const lookup = defineTool({
  name: "lookup_order",
  description: "Find an order.",
  parameters: z.object({ order: z.string() }),
  run: ({ order }) => `order ${order}: paid`,
});
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
  model: "rec:triage",
  tools: [lookup],
  handoffs: ["billing"],
});
// billing names triage back: a cycle, allowed.
const billing = defineAgent({
  name: "billing",
  description: "Handles invoices and refunds.",
  instructions: "You are billing.",
  model: "rec:billing",
  tools: [refund],
  handoffs: [triage],
});

type Turn = Pick<ModelReply, "text" | "toolCalls" | "stop">;
const calls = (...list: [string, string, object?][]): Turn => ({
  text: "",
  toolCalls: list.map(([id, name, args]) => ({ id, name, arguments: JSON.stringify(args ?? {}) })),
  stop: "tool_calls",
});
const answer = (text: string): Turn => ({ text, toolCalls: [], stop: "stop" });

let opened: TestRunlog | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

/** A runlog whose `rec:` models play `turns` by turn number and record every request and its spec. */
async function open(
  turns: Turn[],
  agents: Record<string, ReturnType<typeof defineAgent>> = { triage, billing },
) {
  const requests: { spec: string; request: ModelRequest }[] = [];
  const rec = (name: string): Model => ({
    spec: `rec:${name}`,
    async call(request) {
      requests.push({ spec: `rec:${name}`, request });
      const turn = turns[request.turn];
      if (!turn) throw new Error(`no turn ${request.turn}`);
      return { ...turn, usage: { inputTokens: 1, outputTokens: 1 } };
    },
  });
  opened = await createTestRunlog({ agents, models: { rec } });
  return { runlog: opened.runlog, requests };
}

const toolNames = (request: ModelRequest) => request.tools.map((tool) => tool.name).sort();

describe("a triage agent that transfers to billing", () => {
  it("goes on under billing's instructions, tools and model, and billing gives the final answer", async () => {
    const { runlog, requests } = await open([
      calls(["c1", "transfer_to_billing", { reason: "a refund" }]),
      calls(["c2", "refund", { order: "42" }]),
      answer("Refunded order 42."),
    ]);
    const result = await runlog.start({ agent: "triage", input: "Refund order 42" });
    expect(result).toMatchObject({ status: "completed", output: "Refunded order 42." });
    const log = await opened!.events(result.runId);
    expect(log.map((e) => e.type)).toEqual([
      "run_started",
      "model_response",
      "transferred",
      "model_response",
      "tool_started",
      "tool_result",
      "model_response",
    ]);
    expect(log[2]).toMatchObject({
      type: "transferred",
      callId: "c1",
      name: "transfer_to_billing",
      from: "triage",
      to: "billing",
      reason: "a refund",
      model: "rec:billing",
    });
    // Before: triage's tools and a transfer to billing; after: billing's, and a transfer back.
    expect(requests.map((r) => [r.spec, r.request.instructions, toolNames(r.request)])).toEqual([
      ["rec:triage", "You are triage.", ["lookup_order", "transfer_to_billing"]],
      ["rec:billing", "You are billing.", ["refund", "transfer_to_triage"]],
      ["rec:billing", "You are billing.", ["refund", "transfer_to_triage"]],
    ]);
    const offered = requests[0]!.request.tools.find((tool) => tool.name === "transfer_to_billing");
    expect(offered?.description).toContain("Handles invoices and refunds.");
    // The transfer is answered as the call's result, with the whole history kept.
    expect(requests[1]!.request.messages).toEqual([
      { role: "user", content: "Refund order 42" },
      { role: "assistant", content: "", toolCalls: [expect.objectContaining({ id: "c1" })] },
      expect.objectContaining({ role: "tool", toolCallId: "c1", isError: false }),
    ]);
    expect(log.at(-1)).toMatchObject({ type: "model_response", model: "rec:billing" });
    expect(log[5]).toMatchObject({ type: "tool_result", name: "refund", isError: false });
  });

  it("does not let triage call billing's tools before the transfer", async () => {
    const { runlog } = await open([calls(["c1", "refund", { order: "42" }]), answer("I cannot.")]);
    const result = await runlog.start({ agent: "triage", input: "Refund order 42" });
    const log = await opened!.events(result.runId);
    expect(log.find((e) => e.type === "tool_result")).toMatchObject({
      name: "refund",
      isError: true,
      content: expect.stringContaining("unknown tool refund; available: lookup_order, transfer_to_billing"),
    });
    expect(log.some((e) => e.type === "transferred")).toBe(false);
  });

  it("runs the response's other calls with triage's tools, and transfers once for two transfer calls", async () => {
    const { runlog, requests } = await open([
      calls(
        ["c1", "lookup_order", { order: "42" }],
        ["c2", "transfer_to_billing"],
        ["c3", "transfer_to_billing"],
      ),
      answer("Billing here."),
    ]);
    const result = await runlog.start({ agent: "triage", input: "Order 42?" });
    expect(result.status).toBe("completed");
    const log = await opened!.events(result.runId);
    expect(log.filter((e) => e.type === "transferred")).toHaveLength(1);
    expect(log.find((e) => e.type === "transferred")).toMatchObject({ callId: "c2", to: "billing" });
    const results = log.filter((e) => e.type === "tool_result");
    expect(results).toEqual([
      expect.objectContaining({ callId: "c1", isError: false, content: "order 42: paid" }),
      expect.objectContaining({
        callId: "c3",
        isError: true,
        content: expect.stringContaining("already transfers with call c2"),
      }),
    ]);
    expect(requests[1]?.request.instructions).toBe("You are billing.");
  });

  it("answers a transfer to an agent it may not hand to with a tool error, and stays triage", async () => {
    const { runlog, requests } = await open([calls(["c1", "transfer_to_nobody"]), answer("Still triage.")]);
    const result = await runlog.start({ agent: "triage", input: "Hi" });
    const log = await opened!.events(result.runId);
    expect(log.find((e) => e.type === "tool_result")).toMatchObject({
      isError: true,
      content: expect.stringContaining("unknown tool transfer_to_nobody"),
    });
    expect(requests[1]?.request.instructions).toBe("You are triage.");
  });

  it("keeps counting the run's turns across the transfer (triage's maxTurns bounds billing too)", async () => {
    const limited = defineAgent({
      name: "triage",
      instructions: "You are triage.",
      model: "rec:triage",
      handoffs: ["billing"],
      limits: { maxTurns: 2 },
    });
    // Billing hands back to whichever triage is registered: by name, not the definition above.
    const billingByName = defineAgent({
      name: "billing",
      instructions: "You are billing.",
      model: "rec:billing",
      tools: [refund],
      handoffs: ["triage"],
    });
    const { runlog } = await open(
      [calls(["c1", "transfer_to_billing"]), calls(["c2", "refund", { order: "1" }]), answer("done")],
      { triage: limited, billing: billingByName },
    );
    const result = await runlog.start({ agent: "triage", input: "Refund 1" });
    expect(result.status).toBe("budget_exhausted");
    const log = await opened!.events(result.runId);
    expect(log.filter((e) => e.type === "model_response")).toHaveLength(2);
    expect(log.at(-1)).toMatchObject({ type: "budget_exhausted", limit: "maxTurns" });
  });

  it("forks before the transfer under triage and after it under billing", async () => {
    const { runlog, requests } = await open([
      calls(["c1", "transfer_to_billing"]),
      answer("Billing: done."),
      answer("Forked answer."),
    ]);
    const parent = await runlog.start({ agent: "triage", input: "Refund" });
    expect(parent.status).toBe("completed");
    const log = await opened!.events(parent.runId);
    const transferSeq = log.find((e) => e.type === "transferred")!.seq;

    const before = requests.length;
    const early = await runlog.fork({
      runId: parent.runId,
      atSeq: transferSeq - 1,
      input: "Actually, a question",
    });
    // The copy ends at the transfer call, unanswered: the new message closes it and triage answers.
    expect(early.status).toBe("completed");
    expect(requests.slice(before).map((r) => r.request.instructions)).toEqual(["You are triage."]);
    expect((await opened!.events(early.runId)).some((e) => e.type === "transferred")).toBe(false);

    const middle = requests.length;
    const late = await runlog.fork({ runId: parent.runId, atSeq: transferSeq, forkId: "late-fork" });
    expect(late.status).toBe("completed");
    expect(requests.slice(middle).map((r) => [r.spec, r.request.instructions])).toEqual([
      ["rec:billing", "You are billing."],
    ]);
  });
});

describe("handoffs that cannot be", () => {
  const base = { instructions: "", model: "scripted:x" };

  it("refuses handoffs naming an unknown agent when the registry is made, naming it", async () => {
    const lonely = defineAgent({ ...base, name: "triage", handoffs: ["biling"] });
    const made = createTestRunlog({ agents: { triage: lonely } });
    await expect(made).rejects.toThrow(InvalidInputError);
    await expect(createTestRunlog({ agents: { triage: lonely } })).rejects.toThrow(
      /agent "triage": handoffs names unknown agent "biling"; known agents: triage/,
    );
  });

  it("refuses a name given twice, the agent itself, and a tool named like a transfer", () => {
    expect(() => defineAgent({ ...base, name: "a", handoffs: ["b", "b"] })).toThrow(
      /agent "a": handoffs names "b" twice/,
    );
    expect(() => defineAgent({ ...base, name: "a", handoffs: [billing, "billing"] })).toThrow(
      /handoffs names "billing" twice/,
    );
    expect(() => defineAgent({ ...base, name: "a", handoffs: ["a"] })).toThrow(/names the agent itself/);
    expect(() => defineAgent({ ...base, name: "a", handoffs: [42 as unknown as string] })).toThrow(
      /handoffs\[0\] must be an agent made with defineAgent or an agent's name, got 42/,
    );
    const clash = defineTool({
      name: "transfer_to_b",
      description: "",
      parameters: z.object({}),
      run: () => "",
    });
    expect(() => defineAgent({ ...base, name: "a", tools: [clash], handoffs: ["b"] })).toThrow(
      /tool transfer_to_b has the name of the transfer to agent b/,
    );
  });

  it("refuses an agent registered under another name than its own", async () => {
    await expect(createTestRunlog({ agents: { triage, billing, desk: triage } })).rejects.toThrow(
      /the agent named "triage" is registered as "desk"/,
    );
  });
});

// A process killed around the write of `transferred`, on the CLI (exit 137), then resumed.
const runlogUrl = pathToFileURL(join(ROOT, "dist", "lib", "index.js")).href;
const zodUrl = pathToFileURL(join(ROOT, "node_modules", "zod", "index.js")).href;
const moduleText = (model: string) => `
import { defineAgent, defineTool } from "${runlogUrl}";
import { z } from "${zodUrl}";

const refund = defineTool({
  name: "refund",
  description: "Refund an order.",
  parameters: z.object({ order: z.string() }),
  run: ({ order }) => "refunded " + order,
});

export const agents = {
  triage: defineAgent({ name: "triage", instructions: "triage", model: ${JSON.stringify(model)}, handoffs: ["billing"] }),
  billing: defineAgent({ name: "billing", instructions: "billing", model: ${JSON.stringify(model)}, tools: [refund], handoffs: ["triage"] }),
};
`;

describe("a crash around the transfer", () => {
  const dir = tempDataDir("transfer-crash");
  afterAll(() => cleanup(dir));

  it.each([
    ["transfer:before-append", "right before transferred is written", "model_response"],
    ["transfer:after-append", "right after transferred is written", "transferred"],
  ])("at %s (%s): resume converges with exactly one transferred event", async (crashAt, _, lastType) => {
    const runId = `r-${crashAt.replace(/\W/g, "-")}`;
    const model = script(dir, runId, [
      { toolCalls: [{ name: "transfer_to_billing", arguments: { reason: "refund" } }] },
      { toolCalls: [{ name: "refund", arguments: { order: "7" } }] },
      { text: "Refunded 7." },
    ]);
    const modulePath = join(dir, `${runId}.ts`);
    writeFileSync(modulePath, moduleText(model));
    const args = ["--agents", modulePath];
    const crashed = await runlog(dir, ["run", "--agent", "triage", "--run-id", runId, "refund 7", ...args], {
      RUNLOG_CRASH_AT: crashAt,
    });
    expect(crashed.code, crashed.stderr).toBe(137);
    const before = await events(dir, runId);
    expect(before.at(-1)?.type).toBe(lastType);

    const point = await runlogJson(dir, ["resume-point", runId, ...args]);
    expect(point.json).toMatchObject(
      lastType === "transferred"
        ? { resumable: true, kind: "call_model" }
        : { resumable: true, kind: "run_tools" },
    );
    const resumed = await runlogJson(dir, ["resume", runId, ...args]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.json).toMatchObject({ status: "completed", output: "Refunded 7." });
    const after = await events(dir, runId);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.filter((e) => e.type === "transferred")).toHaveLength(1);
    expect(after.find((e) => e.type === "tool_result")).toMatchObject({ name: "refund", isError: false });
  });
});
