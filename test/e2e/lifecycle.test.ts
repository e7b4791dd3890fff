import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { toMessages } from "../../lib/core/messageBuilder.ts";
import { localPrincipal } from "../../lib/runtime/local/localPrincipal.ts";
import { historyProblem } from "../core/history.ts";
import { cleanup, events, runlog, runlogJson, script, tempDataDir } from "../support/cli.ts";

const dir = tempDataDir("lifecycle-cli");
afterAll(() => cleanup(dir));

const outbox = () => {
  try {
    return readFileSync(join(dir, "outbox.txt"), "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
};
const EMAIL = { name: "send_email", arguments: { to: "ana@example.com", subject: "Lunch" } };
const DONE = { text: "Done", stop: "stop" };

describe("the run lifecycle through the CLI", () => {
  it("a paused run exits 3; approval from a later process resumes and completes it", async () => {
    const model = script(dir, "approve", [
      { toolCalls: [EMAIL, { name: "get_weather", arguments: { city: "Rome" } }] },
      DONE,
    ]);
    const paused = await runlogJson(dir, ["run", "--run-id", "approve", "--model", model, "email Ana"]);
    expect(paused.code).toBe(3);
    expect(paused.json).toMatchObject({ runId: "approve", status: "paused", output: null });

    const point = await runlogJson(dir, ["resume-point", "approve"]);
    expect(point.json).toEqual({
      resumable: false,
      reason: "awaiting_approval",
      description: "waiting for a decision on send_email (call_0_0)",
      seq: 2,
      waitingToolCalls: [{ id: "call_0_0", name: "send_email", arguments: JSON.stringify(EMAIL.arguments) }],
    });
    expect((await runlog(dir, ["resume", "approve"])).code).toBe(3);

    const approved = await runlogJson(dir, [
      "approve",
      "approve",
      "call_0_0",
      "--by",
      "ana",
      "--reason",
      "ok",
    ]);
    expect(approved.code).toBe(0);
    expect(approved.json).toMatchObject({ runId: "approve", status: "completed", output: "Done" });
    expect(outbox()).toEqual(["ana@example.com|Lunch"]);
  });

  it("a reject is answered to the model, and nothing is sent", async () => {
    const model = script(dir, "reject", [
      { toolCalls: [{ ...EMAIL, arguments: { to: "bo@example.com", subject: "x" } }] },
      DONE,
    ]);
    expect((await runlog(dir, ["run", "--run-id", "reject", "--model", model, "email Bo"])).code).toBe(3);
    const rejected = await runlogJson(dir, ["reject", "reject", "call_0_0", "--reason", "no"]);
    expect(rejected.json).toMatchObject({ status: "completed" });
    expect(outbox().some((line) => line.startsWith("bo@"))).toBe(false);
  });

  it("bad decisions and bad forks are exit 2 with a message", async () => {
    const unknown = await runlog(dir, ["approve", "approve", "call_7_7"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no call call_7_7 waiting for approval/);
    const badSeq = await runlog(dir, ["fork", "approve", "--at", "two"]);
    expect(badSeq.code).toBe(2);
    expect(badSeq.stderr).toMatch(/--at takes a seq/);
  });

  it("fork with an id and input continues the copy; the parent is untouched", async () => {
    const model = script(dir, "forked", [DONE, { text: "Again", stop: "stop" }]);
    await runlogJson(dir, ["run", "--run-id", "forked", "--model", model, "hi"]);
    const parent = await events(dir, "forked");
    const fork = await runlogJson(dir, ["fork", "forked", "--id", "forked-2", "--at", "2", "and again"]);
    expect(fork.json).toMatchObject({ runId: "forked-2", status: "completed", output: "Again" });
    expect(await events(dir, "forked")).toEqual(parent);
    // The same fork again (a retry) converges on it; another fork under its id is refused.
    const forked = await events(dir, "forked-2");
    const again = await runlogJson(dir, ["fork", "forked", "--id", "forked-2", "--at", "2", "and again"]);
    expect(again.json).toMatchObject({ runId: "forked-2", status: "completed", output: "Again" });
    expect(await events(dir, "forked-2")).toEqual(forked);
    const taken = await runlog(dir, ["fork", "forked", "--id", "forked-2"]);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(/fork id forked-2 is taken/);
  });

  it("send after a crash left a call unanswered: results kept, the rest closed, the run completes", async () => {
    const crashed = await runlog(dir, ["run", "--run-id", "send", "Plan my afternoon"], {
      RUNLOG_CRASH_AT: "tool:after-start@2",
    });
    expect(crashed.code).toBe(137);
    const sent = await runlogJson(dir, ["send", "send", "never mind the notes"]);
    expect(sent.json).toMatchObject({ runId: "send", status: "completed" });
    const log = await events(dir, "send");
    expect(log.find((e) => e.type === "resumed")).toMatchObject({
      input: "never mind the notes",
      kind: "call_model",
    });
    expect(historyProblem(toMessages(log as never))).toBeNull();
    expect(log.filter((e) => e.type === "tool_result" && e.name === "get_weather")).toHaveLength(1);
  });

  it("cancel while a slow tool runs: the tool stops, nothing more is written, resume says cancelled", async () => {
    const model = script(dir, "slow", [{ toolCalls: [{ name: "wait", arguments: { ms: 120_000 } }] }, DONE]);
    // Not awaited: the run goes on in its own process while this test cancels it.
    const running = runlog(dir, ["run", "--run-id", "slow", "--model", model, "--json", "wait"]);
    while (!(await events(dir, "slow").catch(() => [])).some((e) => e.type === "tool_started")) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const cancelled = await runlogJson(dir, ["cancel", "slow", "--by", "ops", "--reason", "too slow"]);
    expect(cancelled.code).toBe(0);
    expect(cancelled.json).toMatchObject({ runId: "slow", status: "cancelled" });

    const run = await running;
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ runId: "slow", status: "cancelled" });
    const log = await events(dir, "slow");
    // `--by ops`: the local user cancelled, for ops.
    expect(log.at(-1)).toMatchObject({
      type: "cancelled",
      by: localPrincipal().id,
      onBehalfOf: "ops",
      reason: "too slow",
    });
    expect(log.some((e) => e.type === "tool_result")).toBe(false);
    const resumed = await runlogJson(dir, ["resume", "slow"]);
    expect(resumed.code).toBe(1);
    expect(resumed.json).toMatchObject({ status: "cancelled" });
    expect((await runlogJson(dir, ["resume-point", "slow"])).json).toMatchObject({
      resumable: false,
      reason: "cancelled",
    });
  });
});
