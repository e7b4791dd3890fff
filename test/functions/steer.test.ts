import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  DescribeExecutionCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { awsDeps } from "../../functions/deps.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import type { ExecutionInput } from "../../lib/ports/runtime.ts";
import { startRun as startRunStep } from "../../lib/steps/start.ts";
import { execute } from "./execute.ts";
import { handlers } from "./handlers.ts";
import { busEvent, nameOf, STATE_MACHINE_ARN, useFunctionEnvironment } from "./support.ts";

const { resume, startRun, steerRun } = handlers;

const env = useFunctionEnvironment("fn-steer", {
  STATE_MACHINE_ARN,
  RUNLOG_TRUSTED_EVENT_SOURCES: "acme.gateway",
});
const sfn = mockClient(SFNClient);
const SENDER = "account:123456789012";

beforeEach(() => {
  sfn.reset();
  sfn.on(StartExecutionCommand).resolves({ executionArn: "arn", startDate: new Date() });
  // What Step Functions says of an execution just started (an answer's status reads it); one ended
  // here has released the run's lease, so it is never asked about.
  sfn.on(DescribeExecutionCommand).resolves({ status: "RUNNING" } as never);
});

/** The inputs of the executions asked for so far. */
const starts = () =>
  sfn
    .commandCalls(StartExecutionCommand)
    .map((call) => JSON.parse(call.args[0].input.input!) as ExecutionInput);

/**
 * A run of the sender account (as its StartRun event would own it) on these model turns, its first
 * execution run to its end. Started through the library, since an event may not name a script file.
 */
async function scriptedRun(
  runId: string,
  turns: unknown[],
  owner: { id: string; tenant?: string } = { id: SENDER },
) {
  const path = join(process.env.RUNLOG_DIR!, `${runId}.json`);
  writeFileSync(path, JSON.stringify({ turns }));
  const model = `scripted:${path}`;
  await startRunStep((await awsDeps()).control(), {
    agent: "demo",
    input: "Invite Ann",
    runId,
    model,
    owner,
  });
  return (await execute(starts().at(-1)!)).outcome;
}

/** A run that asks to send an email, which a person must approve, then answers: paused for the decision. */
async function pausedRun(runId: string, owner?: { id: string; tenant?: string }) {
  const email = { name: "send_email", arguments: { to: "ann@example.com", subject: "Picnic" } };
  const outcome = await scriptedRun(runId, [{ toolCalls: [email] }, { text: "Sent.", stop: "stop" }], owner);
  expect(outcome).toMatchObject({ status: "paused" });
  // The log ends in the `paused` marker, after the response that asked for the call.
  const paused = (await env.store().read(runId)).findLast((event) => event.type === "model_response");
  if (paused?.type !== "model_response" || !paused.toolCalls[0]) throw new Error("expected a paused call");
  return paused.toolCalls[0].id;
}

const eventsOf = async (runId: string, type: RunEvent["type"]) =>
  (await env.store().read(runId)).filter((event) => event.type === type);

/** What the handler threw: the category Lambda sees, and the runlog error under it. */
async function refusal(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return { name: (error as Error).name, cause: (error as Error).cause as Record<string, unknown> };
  }
  throw new Error("expected the event to be refused");
}

describe("a runlog.Decide event", () => {
  it("approves a paused run's call, recording the sender and the event's id, and the run completes", async () => {
    const callId = await pausedRun("st-approve");
    const event = busEvent(
      "runlog.Decide",
      { runId: "st-approve", callId, approved: true, by: "ann@example.com", reason: "looks right" },
      "e0000000-0000-0000-0000-000000000001",
    );
    expect(await steerRun(event)).toMatchObject({ runId: "st-approve", acted: true });
    expect(await eventsOf("st-approve", "tool_decided")).toMatchObject([
      {
        callId,
        approved: true,
        by: SENDER,
        onBehalfOf: "ann@example.com",
        reason: "looks right",
        idempotencyKey: event.id,
      },
    ]);
    // The decision resumed the run: its next execution runs the approved call, and the run completes.
    const next = starts().at(-1)!;
    expect(next).toMatchObject({ runId: "st-approve", generation: 2 });
    expect((await execute(next)).outcome).toMatchObject({ status: "completed", output: "Sent." });
    expect(await eventsOf("st-approve", "tool_result")).toMatchObject([
      { callId, isError: false, content: "sent to ann@example.com: Picnic" },
    ]);
    expect(await env.store().getHead("st-approve")).toMatchObject({ status: "completed" });
  });

  it("rejects a call with `approved: false`: the model is told, and the run completes", async () => {
    const callId = await pausedRun("st-reject");
    await steerRun(busEvent("runlog.Decide", { runId: "st-reject", callId, approved: false }, "e-reject"));
    expect(await eventsOf("st-reject", "tool_decided")).toMatchObject([
      { callId, approved: false, by: SENDER },
    ]);
    expect((await execute(starts().at(-1)!)).outcome).toMatchObject({ status: "completed" });
    expect(await eventsOf("st-reject", "tool_result")).toMatchObject([{ callId, isError: true }]);
  });

  it("delivered twice acts once: one decision, one resumed generation, one execution name", async () => {
    const callId = await pausedRun("st-twice");
    const event = busEvent("runlog.Decide", { runId: "st-twice", callId, approved: true }, "e-twice");
    const before = starts().length;
    expect(await steerRun(event)).toMatchObject({ acted: true });
    // Delivered again before the execution it started has begun: the same generation, started again
    // under its own name, which Step Functions refuses to start twice; answered as the first was.
    expect(await steerRun(event)).toMatchObject({ acted: true, status: "running" });
    expect(await eventsOf("st-twice", "tool_decided")).toHaveLength(1);
    expect(await eventsOf("st-twice", "resumed")).toHaveLength(1);
    const names = sfn
      .commandCalls(StartExecutionCommand)
      .slice(before)
      .map((call) => call.args[0].input.name);
    expect(new Set(names)).toEqual(new Set([await nameOf(env.store(), "st-twice", 2)]));
    // And once more after the run completed: nothing is written and nothing started.
    await execute(starts().at(-1)!);
    const log = await env.store().read("st-twice");
    const started = sfn.commandCalls(StartExecutionCommand).length;
    expect(await steerRun(event)).toMatchObject({ runId: "st-twice", status: "completed" });
    expect(await env.store().read("st-twice")).toEqual(log);
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(started);
  });

  it("a runlog.ResumeRun with a message, delivered again after its run completed, adds the message once", async () => {
    expect(await scriptedRun("st-resume-twice", [{ text: "first" }, { text: "second" }])).toMatchObject({
      status: "completed",
    });
    const event = busEvent("runlog.ResumeRun", { runId: "st-resume-twice", input: "more please" }, "e-rr");
    expect(await resume(event)).toMatchObject({ resumed: true, generation: 2 });
    await execute(starts().at(-1)!);
    const log = await env.store().read("st-resume-twice");
    const started = sfn.commandCalls(StartExecutionCommand).length;
    expect(await resume(event)).toMatchObject({ resumed: true, generation: 2 });
    expect(await env.store().read("st-resume-twice")).toEqual(log);
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(started);
    expect(log.filter((e) => e.type === "resumed" && e.input === "more please")).toHaveLength(1);
  });

  it("refuses another owner's run as one that does not exist, writing nothing", async () => {
    const callId = await pausedRun("st-theirs", { id: "arn:aws:iam::999999999999:user/victim" });
    const log = await env.store().read("st-theirs");
    const before = starts().length;
    const event = busEvent("runlog.Decide", { runId: "st-theirs", callId, approved: true }, "e-theirs");
    const thrown = await refusal(steerRun(event));
    expect(thrown.name).toBe("PermanentError");
    expect(thrown.cause).toMatchObject({ code: "not_found", runId: "st-theirs" });
    // A detail.owner from an untrusted source changes nothing.
    const spoofed = busEvent(
      "runlog.Decide",
      { runId: "st-theirs", callId, approved: true, owner: { id: "arn:aws:iam::999999999999:user/victim" } },
      "e-spoof",
    );
    expect((await refusal(steerRun(spoofed))).cause).toMatchObject({ code: "not_found" });
    expect(await env.store().read("st-theirs")).toEqual(log);
    expect(starts()).toHaveLength(before);
  });

  it("from a trusted source, acts for the owner its detail names, and for that owner only", async () => {
    const owner = { id: "user-7", tenant: "acme" };
    const callId = await pausedRun("st-tenant", owner);
    const asOther = {
      ...busEvent(
        "runlog.Decide",
        { runId: "st-tenant", callId, approved: true, owner: { id: "user-8" } },
        "e-t1",
      ),
      source: "acme.gateway",
    };
    expect((await refusal(steerRun(asOther))).cause).toMatchObject({ code: "not_found" });
    const asTenant = {
      ...busEvent(
        "runlog.Decide",
        { runId: "st-tenant", callId, approved: true, owner: { id: "user-9", tenant: "acme" } },
        "e-t2",
      ),
      source: "acme.gateway",
    };
    expect(await steerRun(asTenant)).toMatchObject({ acted: true });
    expect(await eventsOf("st-tenant", "tool_decided")).toMatchObject([{ approved: true, by: "user-9" }]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["no callId", { runId: "st-bad", approved: true }, "detail.callId"],
    [
      "an approved that is not a boolean",
      { runId: "st-bad", callId: "c1", approved: "yes" },
      "detail.approved",
    ],
    ["a run id with a path in it", { runId: "../x", callId: "c1", approved: true }, "detail.runId"],
    [
      "an unknown field",
      { runId: "st-bad", callId: "c1", approved: true, onBehalfOf: "x" },
      "detail.onBehalfOf",
    ],
  ])("with %s is refused as the API would refuse its body, naming the field", async (_, detail, field) => {
    const thrown = await refusal(steerRun(busEvent("runlog.Decide", detail, "e-bad")));
    expect(thrown.name).toBe("PermanentError");
    expect(thrown.cause).toMatchObject({ code: "invalid_input", field });
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });
});

describe("a runlog.SendMessage event", () => {
  it("continues a completed run with the message, once however often it is delivered", async () => {
    const turns = [
      { text: "Today: sunny.", stop: "stop" },
      { text: "Tomorrow: rain.", stop: "stop" },
    ];
    expect(await scriptedRun("st-send", turns)).toMatchObject({ status: "completed" });
    const event = busEvent("runlog.SendMessage", { runId: "st-send", message: "And tomorrow?" }, "e-send");
    expect(await steerRun(event)).toMatchObject({ runId: "st-send", acted: true });
    const resumed = await eventsOf("st-send", "resumed");
    expect(resumed).toMatchObject([
      { generation: 2, input: "And tomorrow?", actor: SENDER, idempotencyKey: event.id },
    ]);
    const second = starts().at(-1)!;
    expect(second).toMatchObject({ runId: "st-send", generation: 2 });
    expect((await execute(second)).outcome).toMatchObject({ status: "completed", output: "Tomorrow: rain." });
    const log = await env.store().read("st-send");
    await steerRun(event);
    expect(await env.store().read("st-send")).toEqual(log);
  });

  it("to a run being executed fails (to be retried, then dead-lettered), never dropped", async () => {
    await startRun(
      busEvent("runlog.StartRun", { agent: "demo", input: "Plan my day", runId: "st-busy" }, "e-b0"),
    );
    const thrown = await refusal(
      steerRun(busEvent("runlog.SendMessage", { runId: "st-busy", message: "hurry" }, "e-busy")),
    );
    expect(thrown.name).toBe("ConflictError");
    expect(thrown.cause).toMatchObject({ code: "lease_held", runId: "st-busy" });
    expect(await eventsOf("st-busy", "resumed")).toEqual([]);
  });

  it("refuses a blank message naming detail.message", async () => {
    const thrown = await refusal(
      steerRun(busEvent("runlog.SendMessage", { runId: "st-send", message: " " })),
    );
    expect(thrown.cause).toMatchObject({ code: "invalid_input", field: "detail.message" });
  });
});

describe("a runlog.CancelRun event", () => {
  it("cancels the sender's run and stops the execution holding it, once", async () => {
    await startRun(
      busEvent("runlog.StartRun", { agent: "demo", input: "Plan my day", runId: "st-cancel" }, "e-c0"),
    );
    sfn.on(StopExecutionCommand).resolves({ stopDate: new Date() });
    const event = busEvent("runlog.CancelRun", { runId: "st-cancel", reason: "wrong input" }, "e-cancel");
    expect(await steerRun(event)).toMatchObject({ runId: "st-cancel", status: "cancelled", acted: true });
    expect(await eventsOf("st-cancel", "cancelled")).toMatchObject([
      { by: SENDER, reason: "wrong input", idempotencyKey: event.id },
    ]);
    expect(sfn.commandCalls(StopExecutionCommand)[0]!.args[0].input).toMatchObject({
      executionArn: expect.stringContaining(await nameOf(env.store(), "st-cancel", 1)),
      error: "runlog.Cancelled",
    });
    await steerRun(event);
    expect(await eventsOf("st-cancel", "cancelled")).toHaveLength(1);
  });

  it("refuses another account's run, writing nothing", async () => {
    await startRun(
      busEvent("runlog.StartRun", { agent: "demo", input: "Plan my day", runId: "st-keep" }, "e-k0"),
    );
    const other = {
      ...busEvent("runlog.CancelRun", { runId: "st-keep" }, "e-keep"),
      account: "999999999999",
    };
    expect((await refusal(steerRun(other))).cause).toMatchObject({ code: "not_found", runId: "st-keep" });
    expect(await eventsOf("st-keep", "cancelled")).toEqual([]);
    expect(sfn.commandCalls(StopExecutionCommand)).toHaveLength(0);
  });
});
