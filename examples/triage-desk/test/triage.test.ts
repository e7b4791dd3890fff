import type { RunEvent } from "runlog";
import { createTestRunlog, type TestRunlog } from "runlog/testing";
import { afterEach, describe, expect, it } from "vitest";
import { agents, models } from "../src/agents.ts";
import { SAMPLE_TICKETS, Ticket } from "../src/ticket.ts";
import { trailOf } from "../src/trail.ts";

let t: TestRunlog | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Triage one message on the desk's own models and the shop's MCP server, as `npm start` does. */
async function triage(input: string, runId: string) {
  t = await createTestRunlog({ agents, models });
  const outcome = await t.runlog.start<Ticket>({ agent: "triage", input, runId });
  return { outcome, log: await t.events(runId) };
}

const ofType = <K extends RunEvent["type"]>(log: readonly RunEvent[], type: K) =>
  log.filter((event): event is Extract<RunEvent, { type: K }> => event.type === type);

describe("a billing question: triage asks the billing sub-agent", () => {
  it("answers a typed ticket with billing's answer as its resolution", async () => {
    const { outcome } = await triage(SAMPLE_TICKETS.billing, "bill");
    expect(outcome.status).toBe("completed");
    expect(Ticket.parse(outcome.output)).toEqual({
      category: "billing",
      priority: "high",
      summary: "I was charged twice for order A-1002.",
      resolution:
        "Order A-1002 was charged 2 times for 85. Billing refunds 1 charge of 85 within 5 working days.",
    });
  });

  it("starts exactly one child run of billing, linked to the call, which looked the order up", async () => {
    const { log } = await triage(SAMPLE_TICKETS.billing, "bill");
    const started = ofType(log, "tool_started");
    expect(started).toEqual([expect.objectContaining({ name: "ask_billing", child: "bill.call_0_0" })]);
    expect(ofType(log, "tool_result")).toEqual([
      expect.objectContaining({
        callId: "call_0_0",
        isError: false,
        content: expect.stringContaining("A-1002"),
      }),
    ]);

    const children = await t!.runlog.list({ childrenOf: "bill" });
    expect(children.runs.map((run) => [run.runId, run.status])).toEqual([["bill.call_0_0", "completed"]]);
    const child = await t!.events("bill.call_0_0");
    expect(ofType(child, "run_started")).toEqual([
      expect.objectContaining({ agent: "billing", parent: { runId: "bill", callId: "call_0_0" } }),
    ]);
    expect(trailOf(child).mcpCalls).toEqual(["shop__lookup_order"]);
  });
});

describe("a technical problem: triage hands the conversation to technical", () => {
  it("writes one transferred event, and technical closes the typed ticket", async () => {
    const { outcome, log } = await triage(SAMPLE_TICKETS.technical, "tech");
    const transfers = ofType(log, "transferred");
    expect(transfers).toEqual([
      expect.objectContaining({
        from: "triage",
        to: "technical",
        name: "transfer_to_technical",
        model: "desk:technical",
      }),
    ]);
    // The new agent's MCP tools are recorded at the transfer, and it used one.
    expect(transfers[0]?.mcpTools?.map((tool) => tool.name).sort()).toEqual([
      "shop__known_incident",
      "shop__lookup_order",
    ]);
    expect(trailOf(log)).toMatchObject({
      agent: "technical",
      mcpCalls: ["shop__known_incident"],
      children: [],
    });

    expect(outcome.status).toBe("completed");
    const ticket = Ticket.parse(outcome.output);
    expect(ticket).toMatchObject({ category: "technical", priority: "high" });
    expect(ticket.resolution).toContain("update to 3.2.1");
    // The final answer is technical's: written after the transfer, on technical's model.
    const last = log.at(-1);
    expect(last).toMatchObject({ type: "model_response", stop: "stop", output: ticket });
    expect(last!.seq).toBeGreaterThan(transfers[0]!.seq);
  });
});

describe("an order question: triage calls the shop's MCP server itself", () => {
  it("records the server's tools on the run, and answers from lookup_order's result", async () => {
    const { outcome, log } = await triage(SAMPLE_TICKETS.orders, "order");
    const [start] = ofType(log, "run_started");
    expect(
      start?.mcpTools?.map(({ server, tool, name, idempotent }) => ({ server, tool, name, idempotent })),
    ).toEqual(
      expect.arrayContaining([
        { server: "shop", tool: "lookup_order", name: "shop__lookup_order", idempotent: true },
        { server: "shop", tool: "known_incident", name: "shop__known_incident", idempotent: true },
      ]),
    );
    expect(start?.mcpTools).toHaveLength(2);
    expect(ofType(log, "tool_result")).toEqual([
      expect.objectContaining({
        name: "shop__lookup_order",
        content: expect.stringContaining('"status":"processing"'),
      }),
    ]);
    expect(Ticket.parse(outcome.output)).toEqual({
      category: "orders",
      priority: "normal",
      summary: "Where is my order A-1003?",
      resolution: "Order A-1003 (desk) is processing.",
    });
  });
});

describe("the desk's models", () => {
  it("refuses a desk model that does not exist before anything is written", async () => {
    t = await createTestRunlog({ agents, models });
    await expect(
      t.runlog.start({ agent: "triage", input: "hi", model: "desk:sales", runId: "x" }),
    ).rejects.toThrow(
      /desk:sales: no such desk model; the desk's models are desk:triage, desk:billing, desk:technical/,
    );
    await expect(t.events("x")).rejects.toMatchObject({ name: "NotFoundError" });
  });
});
