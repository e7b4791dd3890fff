import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { handler as resume } from "../../functions/resume.ts";
import { handler as startRun } from "../../functions/startRun.ts";
import type { RunStarted } from "../../lib/core/events.ts";
import { busEvent, STATE_MACHINE_ARN, useFunctionEnvironment } from "./support.ts";

/**
 * Events as an attacker with events:PutEvents on the bus would send them: naming a file on the
 * function's filesystem, claiming someone else's ownership, or a detail the API would refuse.
 */
const env = useFunctionEnvironment("fn-events", {
  STATE_MACHINE_ARN,
  RUNLOG_TRUSTED_EVENT_SOURCES: "acme.gateway",
  RUNLOG_MODELS_ALLOW: "scripted:demo,openai:gpt-4.1*",
});
const sfn = mockClient(SFNClient);
beforeEach(() => {
  sfn.reset();
  sfn.on(StartExecutionCommand).resolves({ executionArn: "arn", startDate: new Date() });
});

/** What the handler threw: the category Step Functions and Lambda see, and the runlog error under it. */
async function refusal(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return { name: (error as Error).name, cause: (error as Error).cause as Record<string, unknown> };
  }
  throw new Error("expected the event to be refused");
}

const first = async (runId: string) => (await env.store().read(runId))[0] as RunStarted | undefined;

describe("runlog.StartRun events", () => {
  it.each(["scripted:/etc/passwd", "scripted:../../../../proc/self/environ", "scripted:/tmp/fifo"])(
    "refuse %s, writing nothing and starting nothing",
    async (model) => {
      const runId = `file-${model.length}`;
      const thrown = await refusal(
        startRun(busEvent("runlog.StartRun", { agent: "demo", input: "go", runId, model })),
      );
      expect(thrown.name).toBe("PermanentError");
      expect(thrown.cause).toMatchObject({
        code: "model_not_allowed",
        field: "model",
        spec: model,
        allowed: ["scripted:demo", "openai:*", "bedrock:*"],
      });
      expect(await env.store().read(runId)).toEqual([]);
      expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
    },
  );

  it("refuse a model the deployment's allow list does not hold, naming the list", async () => {
    const event = busEvent("runlog.StartRun", {
      agent: "demo",
      input: "go",
      runId: "big",
      model: "openai:o3-pro",
    });
    expect((await refusal(startRun(event))).cause).toMatchObject({
      code: "model_not_allowed",
      spec: "openai:o3-pro",
      allowed: ["scripted:demo", "openai:gpt-4.1*"],
    });
    expect(await env.store().read("big")).toEqual([]);
  });

  it("start scripted:demo, owned by the sender account", async () => {
    const event = busEvent("runlog.StartRun", {
      agent: "demo",
      input: "go",
      runId: "acct",
      model: "scripted:demo",
    });
    expect(await startRun(event)).toEqual({ runId: "acct", created: true });
    expect((await first("acct"))?.owner).toEqual({ id: "account:123456789012" });
  });

  it("store the detail's metadata in run_started, and refuse one over the cap naming it, writing nothing", async () => {
    const event = busEvent("runlog.StartRun", {
      agent: "demo",
      input: "go",
      runId: "meta",
      model: "scripted:demo",
      metadata: { requestId: "order-42" },
    });
    expect(await startRun(event)).toEqual({ runId: "meta", created: true });
    expect((await first("meta"))?.metadata).toEqual({ requestId: "order-42" });

    const big = busEvent("runlog.StartRun", {
      agent: "demo",
      input: "go",
      runId: "meta-big",
      model: "scripted:demo",
      metadata: { blob: "x".repeat(4096) },
    });
    const thrown = await refusal(startRun(big));
    expect(thrown.name).toBe("PermanentError");
    expect(JSON.stringify(thrown.cause)).toContain("metadata");
    expect(await env.store().read("meta-big")).toEqual([]);
  });

  it("ignore detail.owner from any source not trusted, and believe it from a trusted one", async () => {
    const claimed = {
      agent: "demo",
      input: "go",
      owner: { id: "arn:aws:iam::999999999999:user/victim", tenant: "t" },
    };
    await startRun(busEvent("runlog.StartRun", { ...claimed, runId: "spoof" }));
    expect((await first("spoof"))?.owner).toEqual({ id: "account:123456789012" });
    await startRun({
      ...busEvent("runlog.StartRun", { ...claimed, runId: "trusted" }),
      source: "acme.gateway",
    });
    expect((await first("trusted"))?.owner).toEqual(claimed.owner);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["an empty input", { agent: "demo", input: "   " }, "detail.input"],
    ["a run id with a path in it", { agent: "demo", input: "go", runId: "../x" }, "detail.runId"],
    ["an unknown field", { agent: "demo", input: "go", by: "someone-else" }, "detail.by"],
    ["an owner without an id", { agent: "demo", input: "go", owner: { tenant: "t" } }, "detail.owner.id"],
  ])("refuse %s as POST /runs would, naming the field", async (_, detail, field) => {
    const thrown = await refusal(startRun(busEvent("runlog.StartRun", detail)));
    expect(thrown.name).toBe("PermanentError");
    expect(thrown.cause).toMatchObject({ code: "invalid_input", field });
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });
});

describe("runlog.ResumeRun events", () => {
  it("refuse a scripted file model, resuming nothing", async () => {
    await startRun(busEvent("runlog.StartRun", { agent: "demo", input: "go", runId: "res" }, "id-res"));
    const before = await env.store().read("res");
    const event = busEvent("runlog.ResumeRun", { runId: "res", model: "scripted:/etc/shadow" });
    expect((await refusal(resume(event))).cause).toMatchObject({
      code: "model_not_allowed",
      spec: "scripted:/etc/shadow",
    });
    expect(await env.store().read("res")).toEqual(before);
  });

  it("resume only the sender's runs: the account's, or the owner a trusted source names", async () => {
    await startRun(busEvent("runlog.StartRun", { agent: "demo", input: "go", runId: "theirs" }, "id-theirs"));
    const before = await env.store().read("theirs");
    const other = {
      ...busEvent("runlog.ResumeRun", { runId: "theirs", input: "more" }),
      account: "999999999999",
    };
    expect((await refusal(resume(other))).cause).toMatchObject({ code: "not_found", runId: "theirs" });
    // A trusted source acts for the owner it names, not for every run: naming none, it is its account.
    const trustedAsItself = { ...other, source: "acme.gateway" };
    expect((await refusal(resume(trustedAsItself))).cause).toMatchObject({ code: "not_found" });
    // An untrusted source's detail.owner is ignored, as a StartRun's is.
    const spoofed = {
      ...busEvent("runlog.ResumeRun", { runId: "theirs", owner: { id: "account:123456789012" } }),
      account: "999999999999",
    };
    expect((await refusal(resume(spoofed))).cause).toMatchObject({ code: "not_found" });
    expect(await env.store().read("theirs")).toEqual(before);
    // The owner's own account, and a trusted source naming that owner, may: the run is still executing, so each is answered so.
    sfn.on(DescribeExecutionCommand).resolves({ status: "RUNNING" } as never);
    const own = busEvent("runlog.ResumeRun", { runId: "theirs", input: "more" }, "id-own");
    await expect(resume(own)).resolves.toMatchObject({ runId: "theirs" });
    const trusted = {
      ...busEvent("runlog.ResumeRun", { runId: "theirs", owner: { id: "account:123456789012" } }, "id-t"),
      source: "acme.gateway",
      account: "999999999999",
    };
    await expect(resume(trusted)).resolves.toMatchObject({ runId: "theirs" });
  });

  it("refuse another detail-type, or an execution's end that Step Functions did not send, naming the field", async () => {
    const unknown = await refusal(resume(busEvent("runlog.Resume", { runId: "res" })));
    expect(unknown.cause).toMatchObject({ code: "invalid_input", field: "detail-type" });
    const forged = {
      ...busEvent("Step Functions Execution Status Change", {
        executionArn: "arn:aws:states:us-east-1:123456789012:execution:sm:x",
        status: "FAILED",
        input: JSON.stringify({ runId: "res", generation: 1 }),
      }),
      source: "runlog",
    };
    expect((await refusal(resume(forged))).cause).toMatchObject({ code: "invalid_input", field: "source" });
  });

  it("refuse a detail the API would refuse, naming the field", async () => {
    const event = busEvent("runlog.ResumeRun", { runId: "res", input: "" });
    expect((await refusal(resume(event))).cause).toMatchObject({
      code: "invalid_input",
      field: "detail.input",
    });
  });
});
