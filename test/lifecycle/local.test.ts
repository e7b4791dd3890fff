import { afterEach, describe, expect, it } from "vitest";
import { BUILT_IN_AGENTS } from "../../lib/agents/builtIn.ts";
import { type LifecycleEvent, LifecycleEventSchema } from "../../lib/core/lifecycle.ts";
import { localPrincipal } from "../../lib/runtime/local/localPrincipal.ts";
import { createTestRunlog, type ScriptTurn, type TestRunlog } from "../../lib/testing/index.ts";

/**
 * The lifecycle a local runlog tells `onLifecycle`: runs that complete, fail (retryably and not),
 * pause, are cancelled, resumed and given up, each told every lifecycle event its log implies, no
 * other, in seq order, with the caller's metadata.
 */
let opened: TestRunlog | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

const metadata = { orderId: "o-42", tags: ["vip"] };
const me = localPrincipal().id;

async function open(script: readonly ScriptTurn[]) {
  const heard: LifecycleEvent[] = [];
  const errors: unknown[] = [];
  opened = await createTestRunlog({
    agents: BUILT_IN_AGENTS,
    script,
    env: { RUNLOG_RETRY_INTERVAL_MS: "0" },
    onLifecycle: (event) => {
      heard.push(event);
    },
    onBackgroundError: (_, error) => errors.push(error),
  });
  return { local: opened, heard, errors };
}

/** What each heard event is, briefly: its type, status and seq. */
const brief = (events: LifecycleEvent[]) => events.map((e) => [e.type, e.status, e.seq]);

/** Every heard event is valid against its published schema, carries the run's facts, and is keyed runId/seq. */
function expectWellFormed(events: LifecycleEvent[], runId: string) {
  for (const event of events) {
    expect(LifecycleEventSchema.parse(event)).toEqual(event);
    expect(event).toMatchObject({ version: 1, runId, agent: "demo", metadata, id: `${runId}/${event.seq}` });
    expect(event.owner?.id).toBe(me);
  }
  const seqs = events.map((e) => e.seq);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
}

describe("onLifecycle", () => {
  it("a run that completes: started, then completed with its output", async () => {
    const { local, heard } = await open([{ text: "All done." }]);
    await local.runlog.start({ agent: "demo", input: "Go", runId: "ok", metadata });
    expect(brief(heard)).toEqual([
      ["runlog.RunStarted", "running", 1],
      ["runlog.RunCompleted", "completed", 2],
    ]);
    expect(heard[1]).toMatchObject({ output: "All done.", outputBytes: 9, generation: 1 });
    expect(heard[1]).not.toHaveProperty("outputAt");
    expectWellFormed(heard, "ok");
  });

  it("an answer continued after the output limit: completed with the whole answer, not its last part", async () => {
    const { local, heard } = await open([
      { text: "The answer is lo", stop: "max_output" },
      { text: "ng and complete." },
    ]);
    await local.runlog.start({ agent: "demo", input: "Go", runId: "long", metadata });
    await local.runlog.resume({ runId: "long" });
    const completed = heard.find((event) => event.type === "runlog.RunCompleted");
    expect(completed).toMatchObject({ output: "The answer is long and complete.", outputBytes: 32 });
    expect((await local.runlog.outcome("long")).output).toBe("The answer is long and complete.");
  });

  it("a run that reaches its budget: failed as budget_exhausted, not retryable, with the figures", async () => {
    const weather = { toolCalls: [{ name: "get_weather", arguments: { city: "Lisbon" } }] };
    const { local, heard } = await open([weather, { text: "never asked" }]);
    const started = await local.runlog.start({
      agent: "demo",
      input: "Go",
      runId: "budget",
      metadata,
      limits: { maxTurns: 1 },
    });
    expect(started.status).toBe("budget_exhausted");
    const events = await local.events("budget");
    expect(brief(heard)).toEqual([
      ["runlog.RunStarted", "running", 1],
      ["runlog.RunFailed", "budget_exhausted", events.at(-1)!.seq],
    ]);
    expect(heard[1]).toMatchObject({ reason: "budget_exhausted", retryable: false });
    expect((heard[1] as { message: string }).message).toMatch(/^maxTurns 1 reached: 1 turns/);
    expectWellFormed(heard, "budget");
  });

  it("a model that rejects the request: failed, not retryable", async () => {
    const { local, heard } = await open([{ error: "rejected" }]);
    await local.runlog.start({ agent: "demo", input: "Go", runId: "rejected", metadata });
    expect(brief(heard)).toEqual([
      ["runlog.RunStarted", "running", 1],
      ["runlog.RunFailed", "failed", 2],
    ]);
    expect(heard[1]).toMatchObject({ reason: "model_failed", retryable: false, error: "ModelRejectedError" });
    expectWellFormed(heard, "rejected");
  });

  it("an unavailable model: failed retryably; resumed by a person, it completes", async () => {
    const down = { error: "connection" } as const;
    // A scripted turn is the answer to the run's nth model turn: every retry of the first fails.
    const { local, heard } = await open([down, { text: "Back." }]);
    const started = await local.runlog.start({ agent: "demo", input: "Go", runId: "outage", metadata });
    expect(started.status).toBe("failed");
    expect(brief(heard)).toEqual([
      ["runlog.RunStarted", "running", 1],
      ["runlog.RunFailed", "failed", 2],
    ]);
    expect(heard[1]).toMatchObject({
      reason: "model_failed",
      retryable: true,
      error: "ModelUnavailableError",
    });
    heard.length = 0;
    await local.runlog.resume({ runId: "outage" });
    expect(brief(heard)).toEqual([
      ["runlog.RunResumed", "running", 3],
      ["runlog.RunCompleted", "completed", 4],
    ]);
    expect(heard[0]).toMatchObject({
      by: "person",
      actor: me,
      generation: 2,
      kind: "call_model",
      newMessage: false,
    });
    expect(heard[1]).toMatchObject({ generation: 2, output: "Back." });
    expectWellFormed(heard, "outage");
  });

  it("a call that needs approval: paused with the call and its arguments, resumed by the approval, completed", async () => {
    const email = { to: "ana@example.com", subject: "Lunch" };
    const { local, heard } = await open([
      { toolCalls: [{ name: "send_email", arguments: email }] },
      { text: "Sent." },
    ]);
    const started = await local.runlog.start({
      agent: "demo",
      input: "Mail Ana",
      runId: "approval",
      metadata,
    });
    expect(started.status).toBe("paused");
    expect(brief(heard)).toEqual([
      ["runlog.RunStarted", "running", 1],
      ["runlog.RunPaused", "paused", 3],
    ]);
    const events = await local.events("approval");
    expect(events.map((e) => e.type)).toEqual(["run_started", "model_response", "paused"]);
    expect(heard[1]).toMatchObject({
      calls: [{ id: expect.any(String), name: "send_email", arguments: JSON.stringify(email) }],
    });
    const callId = (heard[1] as Extract<LifecycleEvent, { type: "runlog.RunPaused" }>).calls[0]!.id;
    heard.length = 0;
    const done = await local.runlog.approve("approval", callId, { by: me });
    expect(done.status).toBe("completed");
    expect(brief(heard)).toEqual([
      ["runlog.RunResumed", "running", 5],
      ["runlog.RunCompleted", "completed", 8],
    ]);
    expect(heard[0]).toMatchObject({ by: "person", kind: "run_tools" });
    expectWellFormed(heard, "approval");
  });

  it("a paused run cancelled: cancelled, by whom", async () => {
    const { local, heard } = await open([
      { toolCalls: [{ name: "send_email", arguments: { to: "b@example.com", subject: "Hi" } }] },
    ]);
    await local.runlog.start({ agent: "demo", input: "Mail B", runId: "cancel", metadata });
    heard.length = 0;
    await local.runlog.cancel("cancel", { by: me, reason: "not today" });
    expect(brief(heard)).toEqual([["runlog.RunCancelled", "cancelled", 4]]);
    expect(heard[0]).toMatchObject({ by: me, reason: "not today" });
    expectWellFormed(heard, "cancel");
  });

  it("a failed run the sweeper resumes, then gives up on: resumed by the sweeper, then given up, once", async () => {
    const down = { error: "connection" } as const;
    const { local, heard } = await open(Array(16).fill(down));
    await local.runlog.start({ agent: "demo", input: "Go", runId: "sweep", metadata });
    heard.length = 0;
    const policy = {
      statuses: ["failed", "interrupted"] as const,
      staleAfterMs: 0,
      backoffMs: 0,
      maxAutoResumes: 1,
    };
    await local.runlog.sweep({ ...policy, statuses: [...policy.statuses] });
    expect(brief(heard)).toEqual([
      ["runlog.RunResumed", "running", 3],
      ["runlog.RunFailed", "failed", 4],
    ]);
    expect(heard[0]).toMatchObject({ by: "sweeper", generation: 2 });
    heard.length = 0;
    const report = await local.runlog.sweep({ ...policy, statuses: [...policy.statuses] });
    expect(report.skipped[0]?.why).toContain("gave up");
    expect(brief(heard)).toEqual([["runlog.RunGivenUp", "interrupted", 5]]);
    expect(heard[0]).toMatchObject({ resumes: 1, generation: 2 });
    // Swept again, the rested run is given up on again, but the log says so once.
    await local.runlog.sweep({ ...policy, statuses: [...policy.statuses] });
    expect(heard).toHaveLength(1);
    expect((await local.events("sweep")).filter((e) => e.type === "given_up")).toHaveLength(1);
    expectWellFormed(heard, "sweep");
  });

  it("a fork: started with its parent, its copied history and opening announce nothing", async () => {
    const { local, heard } = await open([{ text: "One." }, { text: "Two." }]);
    await local.runlog.start({ agent: "demo", input: "Go", runId: "parent", metadata });
    heard.length = 0;
    await local.runlog.fork({ runId: "parent", atSeq: 1, forkId: "child" });
    expect(brief(heard)).toEqual([
      ["runlog.RunStarted", "running", 1],
      ["runlog.RunCompleted", "completed", 3],
    ]);
    expect(heard[0]).toMatchObject({ parent: { runId: "parent", seq: 1 } });
    expectWellFormed(heard, "child");
    // Telling the copy's events never makes the store rebuild a head for the fork before its own.
    const forks = await local.runlog.list({ parent: "parent" });
    expect(forks.runs).toMatchObject([
      { runId: "child", agent: "demo", parent: { runId: "parent", seq: 1 }, owner: { id: me } },
    ]);
  });

  it("what the callback throws is reported and the run goes on", async () => {
    const errors: unknown[] = [];
    opened = await createTestRunlog({
      agents: BUILT_IN_AGENTS,
      script: [{ text: "Fine." }],
      onLifecycle: () => {
        throw new Error("consumer broke");
      },
      onBackgroundError: (_, error) => errors.push(error),
    });
    const outcome = await opened.runlog.start({ agent: "demo", input: "Go", runId: "throws" });
    expect(outcome.status).toBe("completed");
    expect(errors.map((e) => (e as Error).message)).toEqual(["consumer broke", "consumer broke"]);
  });
});
