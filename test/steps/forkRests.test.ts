import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { defineAgent, defineTool } from "../../lib/index.ts";
import { createTestRunlog, type TestRunlog } from "../../lib/testing/index.ts";

// What docs/guides/fork.md says of forks that rest: at an approval-asking response, and of a cancelled run.
const pay = defineTool({
  name: "pay",
  description: "Pay",
  parameters: z.object({}),
  needsApproval: true,
  run: async () => "paid",
});
const clerk = defineAgent({ name: "clerk", instructions: "Pay.", model: "scripted:none", tools: [pay] });

let opened: TestRunlog | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

describe("a fork that rests", () => {
  it("rests paused at the seq of a response asking for approval, and of a cancelled paused run", async () => {
    opened = await createTestRunlog({
      agents: { clerk },
      script: [{ toolCalls: [{ name: "pay", arguments: {} }] }, { text: "ok", stop: "stop" }],
    });
    const { runlog } = opened;
    expect(await runlog.start({ agent: "clerk", input: "go", runId: "a" })).toMatchObject({
      status: "paused",
    });
    const asked = (await opened.events("a")).find((e) => e.type === "model_response")!;
    expect(await runlog.fork({ runId: "a", atSeq: asked.seq, forkId: "at-ask" })).toMatchObject({
      status: "paused",
    });

    await runlog.cancel("a", { by: "tester" });
    expect(await runlog.fork({ runId: "a", forkId: "of-cancelled" })).toMatchObject({ status: "paused" });
    const fork = await opened.events("of-cancelled");
    expect(fork.map((e) => e.type)).not.toContain("cancelled");
    // The parent's call still waits for a decision, in the fork: approving it there runs it.
    const callId = asked.type === "model_response" ? asked.toolCalls[0]!.id : "";
    const approved = await runlog.approve("of-cancelled", callId, { by: "tester" });
    expect(approved).toMatchObject({ status: "completed", output: "ok" });
  });
});
