import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { ConflictError, defineAgent, defineTool, InvalidInputError, type RunEvent } from "../../lib/index.ts";
import { createTestRunlog, type TestRunlog } from "../../lib/testing/index.ts";
import { cleanup, tempDataDir } from "../support/cli.ts";

/** What the tool did: a tool that runs after an expiry would show up here. */
const sent: string[] = [];

/** An agent whose one tool asks a person first, and waits `timeoutMs` for a decision. */
const mailer = (timeoutMs: number | undefined) =>
  defineAgent({
    name: "mailer",
    instructions: "Send the mail.",
    model: "scripted:unused",
    tools: [
      defineTool({
        name: "send",
        description: "Send an email.",
        parameters: z.object({ to: z.string() }),
        needsApproval: true,
        ...(timeoutMs === undefined ? {} : { approvalTimeoutMs: timeoutMs }),
        run: ({ to }) => {
          sent.push(to);
          return `sent to ${to}`;
        },
      }),
    ],
  });

const SCRIPT = [
  { toolCalls: [{ name: "send", arguments: { to: "ann" } }] },
  { text: "I could not send it." },
];

const of = <T extends RunEvent["type"]>(events: RunEvent[], type: T) =>
  events.filter((event): event is Extract<RunEvent, { type: T }> => event.type === type);

/** Wait (without asserting on time) until the clock has passed a deadline read from the log. */
async function pastDeadline(events: RunEvent[]): Promise<void> {
  const response = of(events, "model_response")[0]!;
  const deadline = Date.parse(response.at) + Object.values(response.approvalTimeouts ?? {})[0]!;
  while (Date.now() <= deadline) await new Promise((resolve) => setTimeout(resolve, 2));
}

let opened: TestRunlog | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
  sent.length = 0;
});

describe("an approval that expires", () => {
  it("is answered as rejected by timeout after the deadline, and the run goes on, across a restart", async () => {
    const dataDir = tempDataDir("approval-expiry");
    try {
      const first = await createTestRunlog({ agents: { mailer: mailer(1) }, script: SCRIPT, dataDir });
      const { runId, status } = await first.runlog.start({ agent: "mailer", input: "mail ann" });
      expect(status).toBe("paused");
      const paused = await first.events(runId);
      expect(of(paused, "model_response")[0]).toMatchObject({
        approvals: ["call_0_0"],
        approvalTimeouts: { call_0_0: 1 },
      });
      await first.close();
      await pastDeadline(paused);

      // A new process knows nothing but the log: the deadline is read from it.
      opened = await createTestRunlog({ agents: { mailer: mailer(1) }, script: SCRIPT, dataDir });
      const report = await opened.runlog.sweep();
      expect(report.approvals.expired).toEqual([{ runId, callIds: ["call_0_0"], generation: 2 }]);

      const events = await opened.events(runId);
      expect(of(events, "tool_decided")).toEqual([
        expect.objectContaining({
          callId: "call_0_0",
          approved: false,
          by: "timeout",
          reason: "approval expired",
        }),
      ]);
      expect(of(events, "resumed")).toEqual([expect.objectContaining({ generation: 2, by: "timeout" })]);
      expect(of(events, "tool_result")[0]?.content).toContain("approval expired");
      expect(sent).toEqual([]);
      expect((await opened.runlog.outcome(runId)).status).toBe("completed");
    } finally {
      cleanup(dataDir);
    }
  });

  it("waits while its deadline is ahead, and a call without a timeout waits however long", async () => {
    opened = await createTestRunlog({
      agents: { mailer: mailer(3_600_000), patient: (c) => ({ ...mailer(undefined)(c), name: "patient" }) },
      script: SCRIPT,
    });
    const later = await opened.runlog.start({ agent: "mailer", input: "mail ann" });
    const never = await opened.runlog.start({ agent: "patient", input: "mail ann" });
    expect(of(await opened.events(never.runId), "model_response")[0]?.approvalTimeouts).toBeUndefined();

    const report = await opened.runlog.sweep();
    expect(report.approvals).toMatchObject({ examined: 2, expired: [], failed: [], complete: true });
    for (const runId of [later.runId, never.runId]) {
      expect((await opened.runlog.outcome(runId)).status).toBe("paused");
      expect(of(await opened.events(runId), "tool_decided")).toEqual([]);
    }
  });

  it("leaves a call a person decided before the deadline to that decision", async () => {
    opened = await createTestRunlog({ agents: { mailer: mailer(1_000) }, script: SCRIPT });
    const { runId } = await opened.runlog.start({ agent: "mailer", input: "mail ann" });
    const paused = await opened.events(runId);
    await opened.runlog.approve(runId, "call_0_0", { by: "ann" });
    await pastDeadline(paused);

    const report = await opened.runlog.sweep();
    expect(report.approvals.expired).toEqual([]);
    const events = await opened.events(runId);
    expect(of(events, "tool_decided")).toEqual([
      expect.objectContaining({ approved: true, onBehalfOf: "ann" }),
    ]);
    expect(sent).toEqual(["ann"]);
  });

  it("refuses a decision made after the deadline the sweep has not recorded yet, and records the expiry", async () => {
    opened = await createTestRunlog({ agents: { mailer: mailer(1) }, script: SCRIPT });
    const { runId } = await opened.runlog.start({ agent: "mailer", input: "mail ann" });
    await pastDeadline(await opened.events(runId));

    const late = opened.runlog.approve(runId, "call_0_0", { by: "ann" });
    await expect(late).rejects.toBeInstanceOf(ConflictError);
    await expect(late).rejects.toThrow(
      /call_0_0 .* waited past its approval deadline .* rejected by timeout/,
    );
    const events = await opened.events(runId);
    expect(of(events, "tool_decided")).toEqual([
      expect.objectContaining({ callId: "call_0_0", approved: false, by: "timeout" }),
    ]);
    expect(of(events, "resumed")).toEqual([expect.objectContaining({ by: "timeout" })]);
    expect(sent).toEqual([]);
    expect((await opened.runlog.outcome(runId)).status).toBe("completed");
  });
});

describe("defineTool's approvalTimeoutMs", () => {
  const tool = (more: Record<string, unknown>) => () =>
    defineTool({ name: "t", description: "d", parameters: z.object({}), run: () => "ok", ...more });

  it.each([0, -5, 1.5, Number.NaN])("refuses %s, naming the field", (value) => {
    const thrown = (() => {
      try {
        tool({ needsApproval: true, approvalTimeoutMs: value })();
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(InvalidInputError);
    expect(thrown).toMatchObject({ field: "approvalTimeoutMs" });
  });

  it("refuses a timeout on a tool that asks nobody", () => {
    expect(tool({ approvalTimeoutMs: 1000 })).toThrow(InvalidInputError);
    expect(tool({ needsApproval: false, approvalTimeoutMs: 1000 })).toThrow(/needs needsApproval/);
    expect(tool({ needsApproval: true, approvalTimeoutMs: 1000 })().approvalTimeoutMs).toBe(1000);
  });
});
