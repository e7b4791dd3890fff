import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../lib/http/app.ts";
import { localPrincipal } from "../../lib/runtime/local/localPrincipal.ts";
import { script } from "../support/cli.ts";
import { call, DONE, EMAIL, expectError, lines, openApp, settled } from "./support.ts";

/** Resume, fork, messages, decisions and cancel over HTTP, in process, on a real store in background mode. */
let t: Awaited<ReturnType<typeof openApp>>;
beforeAll(async () => {
  t = await openApp("http-lifecycle");
});
afterAll(() => t.close());

/** Start a run on a script and wait for its first execution to end. */
async function rest(runId: string, turns: unknown[], input = "go"): Promise<Record<string, unknown>> {
  const model = script(t.dir, runId, turns);
  expect((await call(t.app, "POST", "/runs", { agent: "demo", input, runId, model })).status).toBe(202);
  return settled(t.app, runId);
}

const events = async (runId: string) =>
  (await call(t.app, "GET", `/runs/${runId}/events`)).body.events as Record<string, unknown>[];

describe("approvals", () => {
  it("a paused run approved over HTTP completes, and the email is sent once", async () => {
    expect(await rest("approve", [{ toolCalls: [EMAIL] }, DONE], "email Ana")).toMatchObject({
      status: "paused",
    });
    expect(lines(t.dir, "outbox.txt")).toEqual([]);
    const approved = await call(t.app, "POST", "/runs/approve/approvals/call_0_0", { approved: true });
    expect(approved).toMatchObject({ status: 202, body: { runId: "approve" } });
    expect(await settled(t.app, "approve")).toMatchObject({ status: "completed", output: "Done" });
    expect(lines(t.dir, "outbox.txt")).toEqual(["ana@example.com|Lunch"]);
    // Nobody named in the body: recorded as the local user `runlog serve` runs as, and nothing beside it.
    const decided = (await events("approve")).find((e) => e.type === "tool_decided");
    expect(decided).toMatchObject({ approved: true, by: localPrincipal().id });
    expect(decided).not.toHaveProperty("onBehalfOf");

    // The same decision again (a retry) is taken as done; another decision on the call is refused.
    const twice = await call(t.app, "POST", "/runs/approve/approvals/call_0_0", { approved: true });
    expect(twice).toMatchObject({ status: 202, body: { runId: "approve", status: "completed" } });
    const otherwise = await call(t.app, "POST", "/runs/approve/approvals/call_0_0", { approved: false });
    expect(expectError(otherwise, 409, "conflict").message).toMatch(/already approved/);
    expect(lines(t.dir, "outbox.txt")).toEqual(["ana@example.com|Lunch"]);
    const unknown = await call(t.app, "POST", "/runs/approve/approvals/call_9_9", { approved: true });
    expectError(unknown, 404, "not_found");
  });

  it("a rejection with by and reason is answered to the model; nothing is sent", async () => {
    const email = { ...EMAIL, arguments: { to: "bo@example.com", subject: "x" } };
    await rest("reject", [{ toolCalls: [email] }, DONE]);
    const body = { approved: false, by: "ana", reason: "not now" };
    expect((await call(t.app, "POST", "/runs/reject/approvals/call_0_0", body)).status).toBe(202);
    expect(await settled(t.app, "reject")).toMatchObject({ status: "completed" });
    expect(lines(t.dir, "outbox.txt")).not.toContain("bo@example.com|x");
    expect((await events("reject")).find((e) => e.type === "tool_decided")).toMatchObject({
      approved: false,
      by: localPrincipal().id,
      onBehalfOf: "ana",
      reason: "not now",
    });
  });

  it("`by` is the principal the options.principal hook names", async () => {
    const arn = "arn:aws:iam::123456789012:user/ana";
    const app = createApp(t.local.runlog, { allowScriptFiles: true, principal: () => ({ id: arn }) });
    const model = script(t.dir, "caller", [
      { toolCalls: [{ ...EMAIL, arguments: { to: "cy@example.com", subject: "y" } }] },
      DONE,
    ]);
    const start = { agent: "demo", input: "go", runId: "caller", model };
    expect((await call(app, "POST", "/runs", start)).status).toBe(202);
    await settled(app, "caller");
    expect((await call(app, "POST", "/runs/caller/approvals/call_0_0", { approved: true })).status).toBe(202);
    await settled(app, "caller");
    expect((await events("caller")).find((e) => e.type === "tool_decided")).toMatchObject({ by: arn });
  });
});

describe("POST /runs/{id}/resume", () => {
  it("resumes an interrupted run (202) to completion; a completed run answers 200 with its outcome", async () => {
    expect(await rest("cut", [{ text: "partial", stop: "max_output" }, DONE])).toMatchObject({
      status: "interrupted",
    });
    const resumed = await call(t.app, "POST", "/runs/cut/resume", {});
    expect(resumed).toMatchObject({ status: 202, body: { runId: "cut" } });
    expect(await settled(t.app, "cut")).toMatchObject({ status: "completed" });
    const again = await call(t.app, "POST", "/runs/cut/resume", {});
    expect(again).toMatchObject({ status: 200, body: { runId: "cut", status: "completed" } });
  });

  it("a run waiting for approval is not resumable: 409 with the reason", async () => {
    await rest("waiting", [{ toolCalls: [EMAIL] }, DONE]);
    const answer = await call(t.app, "POST", "/runs/waiting/resume", {});
    expect(expectError(answer, 409, "not_resumable")).toMatchObject({ reason: "awaiting_approval" });
  });
});

describe("POST /runs/{id}/messages", () => {
  it("continues a completed run with a new message (202) to a new answer", async () => {
    await rest("chat", [DONE, { text: "Second answer", stop: "stop" }]);
    const sent = await call(t.app, "POST", "/runs/chat/messages", { message: "and then?" });
    expect(sent).toMatchObject({ status: 202, body: { runId: "chat" } });
    expect(await settled(t.app, "chat")).toMatchObject({ status: "completed", output: "Second answer" });
    expect((await events("chat")).filter((e) => e.type === "resumed")).toMatchObject([
      { input: "and then?" },
    ]);
  });
});

describe("POST /runs/{id}/fork", () => {
  it("copies the log into a new run (202 with the fork id) that goes on; the parent is unchanged", async () => {
    await rest("parent", [DONE, { text: "Forked answer", stop: "stop" }]);
    const before = await events("parent");
    const fork = await call(t.app, "POST", "/runs/parent/fork", {
      atSeq: 2,
      input: "try again",
      forkId: "child",
    });
    expect(fork).toMatchObject({ status: 202, body: { runId: "child" } });
    expect(await settled(t.app, "child")).toMatchObject({ status: "completed", output: "Forked answer" });
    expect((await events("child"))[0]).toMatchObject({ runId: "child", parent: { runId: "parent", seq: 2 } });
    expect(await events("parent")).toEqual(before);
    const forks = await call(t.app, "GET", "/runs?parent=parent");
    expect(forks.body.runs).toMatchObject([{ runId: "child", parent: { runId: "parent", seq: 2 } }]);
    expect((await call(t.app, "GET", "/runs?parent=child")).body).toEqual({ runs: [] });
    const taken = await call(t.app, "POST", "/runs/parent/fork", { forkId: "approve" });
    expectError(taken, 409, "id_taken");
    expect(taken.body).toMatchObject({ error: { id: "approve", differences: expect.any(Array) } });
    const outOfRange = await call(t.app, "POST", "/runs/parent/fork", { atSeq: 999 });
    expectError(outOfRange, 400, "invalid_input");
  });
});

describe("POST /runs/{id}/cancel", () => {
  it("cancels a paused run (200); a cancelled run takes no message, no decision and no resume", async () => {
    await rest("stop-me", [
      { toolCalls: [{ ...EMAIL, arguments: { to: "di@example.com", subject: "z" } }] },
      DONE,
    ]);
    const cancelled = await call(t.app, "POST", "/runs/stop-me/cancel", {
      by: "ops",
      reason: "wrong recipient",
    });
    expect(cancelled).toMatchObject({ status: 200, body: { runId: "stop-me", status: "cancelled" } });
    expect((await events("stop-me")).at(-1)).toMatchObject({
      type: "cancelled",
      by: localPrincipal().id,
      onBehalfOf: "ops",
      reason: "wrong recipient",
    });
    expect((await call(t.app, "POST", "/runs/stop-me/cancel", {})).status).toBe(200);
    expectError(await call(t.app, "POST", "/runs/stop-me/messages", { message: "hi" }), 409, "conflict");
    expectError(
      await call(t.app, "POST", "/runs/stop-me/approvals/call_0_0", { approved: true }),
      409,
      "conflict",
    );
    const resume = await call(t.app, "POST", "/runs/stop-me/resume", {});
    expect(expectError(resume, 409, "not_resumable")).toMatchObject({ reason: "cancelled" });
    expect(lines(t.dir, "outbox.txt")).not.toContain("di@example.com|z");
  });

  it("a completed run cannot be cancelled: 409", async () => {
    await rest("finished", [DONE]);
    expectError(await call(t.app, "POST", "/runs/finished/cancel", {}), 409, "conflict");
  });
});
