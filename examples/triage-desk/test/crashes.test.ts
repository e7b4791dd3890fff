import { rmSync } from "node:fs";
import type { RunEvent, RunOutcome } from "runlog";
import { afterAll, describe, expect, it } from "vitest";
import { SAMPLE_TICKETS, Ticket } from "../src/ticket.ts";
import { runlog, runlogJson, shown, tempDir } from "./cli.ts";

// Each test kills a real `runlog run` at one point (RUNLOG_CRASH_AT, docs/reference/fault-injection.md),
// then `runlog resume` must end with the ticket an uninterrupted run gives: one child, one answer.

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Where a kill left the logs: the last event of run `p` or of its child, as far as it matters. */
interface KilledAt {
  run: "p" | "p.call_0_0";
  last: Record<string, unknown>;
}

/**
 * Triage `input` as run `p`, killed at `crashAt`, and check the kill landed where `killedAt` says;
 * then resume it, twice. Answers the first resume's outcome and the run's log.
 */
async function killAndResume(input: string, crashAt: string, killedAt: KilledAt) {
  const dir = tempDir(crashAt.replace(/\W+/g, "-"));
  dirs.push(dir);
  const killed = await runlog(dir, ["run", "--agent", "triage", "--run-id", "p", input], crashAt);
  expect(killed.code, killed.stderr).toBe(137);
  expect((await shown(dir, killedAt.run)).at(-1)).toMatchObject(killedAt.last);
  const resumed = await runlogJson<RunOutcome<Ticket>>(dir, ["resume", "p"]);
  // A second resume finds the run complete, its child too, and changes nothing.
  const again = await runlogJson<RunOutcome<Ticket>>(dir, ["resume", "p"]);
  expect(again).toMatchObject({ runId: "p", status: "completed", output: resumed.output });
  const log = await shown(dir, "p");
  expect(log.map((event) => event.seq)).toEqual(log.map((_, index) => index + 1));
  return { dir, resumed, log };
}

const ofType = <K extends RunEvent["type"]>(log: readonly RunEvent[], type: K) =>
  log.filter((event): event is Extract<RunEvent, { type: K }> => event.type === type);

/**
 * The billing ticket passes these in order: the parent's ask_billing call written (no child yet),
 * the child's run_started, the child's lookup_order call started (its 1st model turn is append 2),
 * the child's final answer (append 3, its parent not told), the parent's call answered.
 */
const BILLING_POINTS: readonly [string, string, KilledAt][] = [
  [
    "the parent's call is written, before the child starts",
    "tool:after-start",
    { run: "p", last: { type: "tool_started", name: "ask_billing", child: "p.call_0_0" } },
  ],
  [
    "the child's run_started, before it runs",
    "subagent:after-child-start",
    { run: "p.call_0_0", last: { seq: 1, type: "run_started", agent: "billing" } },
  ],
  [
    "the child is mid-run, its MCP call started",
    "tool:after-start@2",
    { run: "p.call_0_0", last: { type: "tool_started", name: "shop__lookup_order" } },
  ],
  [
    "the child's final answer, its parent not told",
    "model:after-append@3",
    { run: "p.call_0_0", last: { type: "model_response", stop: "stop" } },
  ],
  [
    "the parent's call is answered, the parent not resumed",
    "subagent:after-answer",
    { run: "p", last: { type: "tool_result", callId: "call_0_0" } },
  ],
];

describe.each(BILLING_POINTS)("billing ticket killed after %s (%s)", (_, crashAt, killedAt) => {
  it("resumes to one child run of billing, one answer to the call, and the typed ticket", async () => {
    const { dir, resumed, log } = await killAndResume(SAMPLE_TICKETS.billing, crashAt, killedAt);
    expect(resumed.status).toBe("completed");
    expect(Ticket.parse(resumed.output)).toMatchObject({
      category: "billing",
      resolution:
        "Order A-1002 was charged 2 times for 85. Billing refunds 1 charge of 85 within 5 working days.",
    });
    expect(ofType(log, "tool_started")).toEqual([
      expect.objectContaining({ callId: "call_0_0", child: "p.call_0_0" }),
    ]);
    expect(ofType(log, "tool_result")).toEqual([
      expect.objectContaining({ callId: "call_0_0", isError: false }),
    ]);

    const children = await runlogJson<{ runs: { runId: string; status: string }[] }>(dir, [
      "ls",
      "--children-of",
      "p",
    ]);
    expect(children.runs.map((run) => [run.runId, run.status])).toEqual([["p.call_0_0", "completed"]]);
    const child = await shown(dir, "p.call_0_0");
    expect(ofType(child, "run_started")).toEqual([
      expect.objectContaining({ agent: "billing", parent: { runId: "p", callId: "call_0_0" } }),
    ]);
    // The child answered once, and its order was looked up once to a result.
    expect(ofType(child, "model_response").filter((event) => event.stop === "stop")).toHaveLength(1);
    expect(ofType(child, "tool_result")).toEqual([
      expect.objectContaining({ name: "shop__lookup_order", isError: false }),
    ]);
  });
});

describe.each<[string, string, KilledAt]>([
  [
    "before the transfer is written",
    "transfer:before-append",
    { run: "p", last: { type: "model_response", stop: "tool_calls" } },
  ],
  [
    "after the handoff, before technical is called",
    "transfer:after-append",
    { run: "p", last: { type: "transferred", from: "triage", to: "technical" } },
  ],
  [
    "after the handoff, mid-call in technical's MCP tool",
    "tool:after-start",
    { run: "p", last: { type: "tool_started", name: "shop__known_incident" } },
  ],
])("technical ticket killed %s (%s)", (_, crashAt, killedAt) => {
  it("resumes to one transfer, and technical's typed ticket", async () => {
    const { resumed, log } = await killAndResume(SAMPLE_TICKETS.technical, crashAt, killedAt);
    expect(resumed.status).toBe("completed");
    expect(Ticket.parse(resumed.output)).toMatchObject({ category: "technical", priority: "high" });
    expect(ofType(log, "transferred")).toEqual([
      expect.objectContaining({ from: "triage", to: "technical" }),
    ]);
    // Technical's MCP tool, recorded at the transfer, answered once (run again if it was cut off).
    expect(ofType(log, "tool_result")).toEqual([
      expect.objectContaining({ name: "shop__known_incident", isError: false }),
    ]);
    expect(log.at(-1)).toMatchObject({ type: "model_response", stop: "stop", output: resumed.output });
  });
});

describe("order ticket killed after the MCP tool ran, before its result was written (tool:after-run)", () => {
  it("runs the idempotent lookup again on resume, and answers once", async () => {
    const { resumed, log } = await killAndResume(SAMPLE_TICKETS.orders, "tool:after-run", {
      run: "p",
      last: { type: "tool_started", name: "shop__lookup_order" },
    });
    expect(Ticket.parse(resumed.output)).toMatchObject({
      category: "orders",
      resolution: "Order A-1003 (desk) is processing.",
    });
    expect(ofType(log, "tool_started")).toHaveLength(1);
    expect(ofType(log, "tool_result")).toEqual([
      expect.objectContaining({ name: "shop__lookup_order", isError: false }),
    ]);
  });
});
