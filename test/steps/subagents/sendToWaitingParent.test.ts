import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { ConflictError } from "../../../lib/core/errors.ts";
import type { NewEvent, RunEvent } from "../../../lib/core/events.ts";
import { toMessages } from "../../../lib/core/messageBuilder.ts";
import { INTERRUPTED_TOOL_RESULT } from "../../../lib/core/messages.ts";
import { stamp } from "../../../lib/core/storedEvents.ts";
import { agentAsTool, defineAgent, defineTool, type ModelReply } from "../../../lib/index.ts";
import { createTestRunlog, type TestRunlog } from "../../../lib/testing/index.ts";
import { testEnv } from "../../support/cli.ts";
import { connectStore } from "../../support/store.ts";

/**
 * A run waiting for its sub-agent's run takes no message: the message would close the sub-agent
 * call while the child goes on, and the child's answer (and whatever it does once decided) would
 * come to nothing. Refused before anything is written; the child is decided or cancelled instead.
 */

const dir = mkdtempSync(join(tmpdir(), "send-waiting-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let paid = 0;
const pay = defineTool({
  name: "pay",
  description: "Pay (needs approval).",
  parameters: z.object({ amount: z.number() }),
  needsApproval: true,
  run: ({ amount }) => {
    paid++;
    return `paid ${amount}`;
  },
});
const confirm = defineTool({
  name: "confirm",
  description: "Confirm (needs approval).",
  parameters: z.object({}),
  needsApproval: true,
  run: () => "confirmed",
});

const ask = (id: string): ModelReply["toolCalls"][number] => ({
  id,
  name: "ask_payer",
  arguments: '{"input":"pay 50"}',
});
/** Each agent's turns, by its instructions. */
const turns: Record<string, ModelReply[]> = {
  payer: [
    { text: "", toolCalls: [{ id: "pay_1", name: "pay", arguments: '{"amount":50}' }], stop: "tool_calls" },
    { text: "payer: paid 50", toolCalls: [], stop: "stop" },
  ],
  boss: [
    { text: "", toolCalls: [ask("ask_1")], stop: "tool_calls" },
    { text: "boss: done", toolCalls: [], stop: "stop" },
    { text: "boss: nothing new", toolCalls: [], stop: "stop" },
  ],
  // A sub-agent call and a call of its own waiting for a decision, in one response.
  careful: [
    {
      text: "",
      toolCalls: [ask("ask_1"), { id: "confirm_1", name: "confirm", arguments: "{}" }],
      stop: "tool_calls",
    },
    { text: "careful: done", toolCalls: [], stop: "stop" },
  ],
};
const models = {
  plan: () => ({
    spec: "plan:x",
    call: async (request: { instructions: string; turn: number }) => {
      const reply = turns[request.instructions]?.[request.turn];
      if (reply === undefined) throw new Error(`no turn ${request.turn} for ${request.instructions}`);
      return reply;
    },
  }),
};
const payer = defineAgent({ name: "payer", instructions: "payer", model: "plan:x", tools: [pay] });
const askPayer = agentAsTool(payer, { name: "ask_payer", description: "Ask the payer" });
const boss = defineAgent({ name: "boss", instructions: "boss", model: "plan:x", tools: [askPayer] });
const careful = defineAgent({
  name: "careful",
  instructions: "careful",
  model: "plan:x",
  tools: [askPayer, confirm],
});
const agents = { boss, careful };

let opened: TestRunlog | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("a message to a run waiting for its sub-agent", () => {
  it("is refused naming the child, writes nothing, and the child's answer still reaches the parent", async () => {
    paid = 0;
    opened = await createTestRunlog({ agents, models });
    const { runlog } = opened;
    await runlog.start({ agent: "boss", input: "pay", runId: "w" });
    expect((await runlog.outcome("w")).status).toBe("waiting");
    expect((await runlog.outcome("w.ask_1")).status).toBe("paused");
    const before = await opened.events("w");

    const refused = await rejection(runlog.send("w", "any news?"));
    expect(refused).toBeInstanceOf(ConflictError);
    expect(refused).toMatchObject({ code: "conflict", runId: "w" });
    expect((refused as Error).message).toContain("w.ask_1");
    expect(await opened.events("w")).toEqual(before);
    expect((await runlog.outcome("w")).status).toBe("waiting");

    // Deciding the child goes on as ever: it pays once, and its answer is the parent's call's result.
    await runlog.approve("w.ask_1", "pay_1", { by: "me" });
    expect(paid).toBe(1);
    const parent = await opened.events("w");
    expect(parent.filter((e) => e.type === "tool_result")).toEqual([
      expect.objectContaining({ callId: "ask_1", content: "payer: paid 50", isError: false }),
    ]);
    expect(await runlog.outcome("w")).toMatchObject({ status: "completed", output: "boss: done" });
    // Once the parent has ended, it takes messages again.
    expect(await runlog.send("w", "any news?")).toMatchObject({ output: "boss: nothing new" });
  });

  it("is refused when the run also waits for a decision of its own, until the child is cancelled", async () => {
    opened = await createTestRunlog({ agents, models });
    const { runlog } = opened;
    await runlog.start({ agent: "careful", input: "pay", runId: "c" });
    expect((await runlog.outcome("c")).status).toBe("paused");
    const before = await opened.events("c");
    const refused = await rejection(runlog.send("c", "hurry"));
    expect(refused).toMatchObject({ code: "conflict", runId: "c" });
    expect((refused as Error).message).toContain("c.ask_1");
    expect(await opened.events("c")).toEqual(before);

    // Cancelling the child answers its call: then the run takes the message (the call waiting for
    // a decision is answered as undecided, as for any paused run).
    await runlog.cancel("c.ask_1", { by: "me" });
    expect((await opened.events("c")).find((e) => e.type === "tool_result")).toMatchObject({
      callId: "ask_1",
      isError: true,
      content: expect.stringContaining("cancelled"),
    });
    expect(await runlog.send("c", "hurry")).toMatchObject({ status: "completed", output: "careful: done" });
  });
});

/** Events stamped as stored, from seq `from`, at generation `generation`. */
const stamped = (events: NewEvent[], from: number, generation: number): RunEvent[] =>
  events.map((event, i) => stamp(event, from + i, new Date(), generation));

/** What a send to a waiting run wrote before such sends were refused: the new message, generation 2. */
const oldSend: NewEvent = {
  type: "resumed",
  generation: 2,
  kind: "call_model",
  description: "a new user message: call the model",
  input: "any news?",
  by: "person",
};

describe("a sub-agent call a message closed (a log written before such messages were refused)", () => {
  it("is not answered to the model as interrupted by a stopped process", () => {
    const log = stamped(
      [
        { type: "run_started", runId: "old", agent: "boss", model: "plan:x", input: "pay" },
        { type: "model_response", text: "", toolCalls: [ask("ask_1")], stop: "tool_calls" },
        { type: "tool_started", callId: "ask_1", name: "ask_payer", child: "old.ask_1" },
      ],
      1,
      1,
    ).concat(stamped([oldSend], 4, 2));
    const answer = toMessages(log).find((m) => m.role === "tool");
    expect(answer).toMatchObject({ toolCallId: "ask_1", isError: true });
    expect(answer).not.toMatchObject({ content: INTERRUPTED_TOOL_RESULT });
    expect(answer).toMatchObject({ content: expect.stringContaining("child run old.ask_1") });
  });

  it("has its child cancelled with the run, though a message closed its batch", async () => {
    const dataDir = mkdtempSync(join(dir, "legacy-"));
    opened = await createTestRunlog({ agents, models, dataDir });
    await opened.runlog.start({ agent: "boss", input: "pay", runId: "legacy" });
    await opened.close();
    opened = undefined;
    // The parent's log as an old send left it, its process killed before the model was called.
    const { store, close } = await connectStore({ dataDir, env: testEnv() });
    const seq = (await store.getHead("legacy"))!.lastSeq + 1;
    await store.append("legacy", stamped([oldSend], seq, 2)[0]!);
    await close();

    opened = await createTestRunlog({ agents, models, dataDir });
    const { runlog } = opened;
    expect((await runlog.outcome("legacy.ask_1")).status).toBe("paused");
    await runlog.cancel("legacy", { by: "me" });
    expect((await runlog.outcome("legacy.ask_1")).status).toBe("cancelled");
    expect((await opened.events("legacy.ask_1")).at(-1)).toMatchObject({
      type: "cancelled",
      reason: "its parent run legacy was cancelled",
    });
  });
});
