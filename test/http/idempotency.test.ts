import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { script } from "../support/cli.ts";
import { call, DONE, EMAIL, expectError, lines, openApp, settled } from "./support.ts";

/**
 * Idempotency-Key on the control routes (messages, fork, decisions, cancel): a client that lost
 * the answer sends the request again, and the run takes it once. The key lives in the log, so the
 * retry may come at any time; the same key with another request is a 409.
 */
let t: Awaited<ReturnType<typeof openApp>>;
beforeAll(async () => {
  t = await openApp("http-idempotency");
});
afterAll(() => t.close());

const key = (value: string) => ({ "idempotency-key": value });
const events = async (runId: string) =>
  (await call(t.app, "GET", `/runs/${runId}/events`)).body.events as Record<string, unknown>[];
const ofType = async (runId: string, type: string) => (await events(runId)).filter((e) => e.type === type);

async function rest(runId: string, turns: unknown[]): Promise<Record<string, unknown>> {
  const model = script(t.dir, runId, turns);
  expect((await call(t.app, "POST", "/runs", { agent: "demo", input: "go", runId, model })).status).toBe(202);
  return settled(t.app, runId);
}

describe("POST /runs/{id}/messages with an Idempotency-Key", () => {
  it("posted twice after the first answer: one resumed event, one model answer", async () => {
    await rest("msg", [DONE, { text: "Again", stop: "stop" }, { text: "Third", stop: "stop" }]);
    const first = await call(t.app, "POST", "/runs/msg/messages", { message: "more" }, key("m-1"));
    expect(first.status).toBe(202);
    expect(await settled(t.app, "msg")).toMatchObject({ status: "completed", output: "Again" });
    // The answer was lost; the client retries, an hour later as far as the log can tell.
    const retry = await call(t.app, "POST", "/runs/msg/messages", { message: "more" }, key("m-1"));
    expect(retry).toMatchObject({ status: 202, body: { runId: "msg", output: "Again" } });
    expect(await settled(t.app, "msg")).toMatchObject({ status: "completed", output: "Again" });
    const resumed = await ofType("msg", "resumed");
    expect(resumed).toHaveLength(1);
    expect(resumed[0]).toMatchObject({ input: "more", idempotencyKey: "m-1" });
    expect(await ofType("msg", "model_response")).toHaveLength(2);
  });

  it("the same key with another message is 409 idempotency_key_reused, and nothing is written", async () => {
    await rest("msg-other", [DONE, { text: "Again", stop: "stop" }]);
    await call(t.app, "POST", "/runs/msg-other/messages", { message: "one" }, key("k"));
    await settled(t.app, "msg-other");
    const before = (await events("msg-other")).length;
    const other = await call(t.app, "POST", "/runs/msg-other/messages", { message: "two" }, key("k"));
    const error = expectError(other, 409, "idempotency_key_reused");
    expect(error).toMatchObject({ runId: "msg-other" });
    expect(error.message).toContain('input "one", not "two"');
    expect(await events("msg-other")).toHaveLength(before);
  });

  it("two at once with one key: one resumed event, both answered", async () => {
    await rest("msg-race", [DONE, { text: "Again", stop: "stop" }, { text: "Third", stop: "stop" }]);
    const send = () => call(t.app, "POST", "/runs/msg-race/messages", { message: "race" }, key("r-1"));
    const answers = await Promise.all([send(), send()]);
    expect(answers.map((a) => a.status)).toEqual([202, 202]);
    expect(await settled(t.app, "msg-race")).toMatchObject({ status: "completed", output: "Again" });
    expect(await ofType("msg-race", "resumed")).toHaveLength(1);
  });

  it("a key that is not printable ASCII is a 400 naming the header", async () => {
    await rest("msg-bad", [DONE]);
    const bad = await call(t.app, "POST", "/runs/msg-bad/messages", { message: "x" }, key("é"));
    expect(expectError(bad, 400, "invalid_input").field).toBe("Idempotency-Key");
  });
});

describe("decisions, cancel and fork with an Idempotency-Key", () => {
  it("an approval retried after the run completed answers as the first did; another verdict is 409", async () => {
    await rest("dec", [{ toolCalls: [EMAIL] }, DONE]);
    const path = "/runs/dec/approvals/call_0_0";
    expect((await call(t.app, "POST", path, { approved: true }, key("d-1"))).status).toBe(202);
    expect(await settled(t.app, "dec")).toMatchObject({ status: "completed" });
    const retry = await call(t.app, "POST", path, { approved: true }, key("d-1"));
    expect(retry).toMatchObject({ status: 202, body: { status: "completed", output: "Done" } });
    expect(await ofType("dec", "tool_decided")).toEqual([
      expect.objectContaining({ approved: true, idempotencyKey: "d-1" }),
    ]);
    expect(await ofType("dec", "resumed")).toHaveLength(1);
    expect(lines(t.dir, "outbox.txt").filter((l) => l === "ana@example.com|Lunch")).toHaveLength(1);
    const other = await call(t.app, "POST", path, { approved: false }, key("d-1"));
    expect(expectError(other, 409, "idempotency_key_reused").message).toContain("approved true, not false");
  });

  it("a cancel retried with its key is one cancelled event; another reason under the key is 409", async () => {
    await rest("can", [{ toolCalls: [EMAIL] }, DONE]);
    const body = { reason: "wrong recipient" };
    expect((await call(t.app, "POST", "/runs/can/cancel", body, key("c-1"))).status).toBe(200);
    const retry = await call(t.app, "POST", "/runs/can/cancel", body, key("c-1"));
    expect(retry).toMatchObject({ status: 200, body: { status: "cancelled" } });
    expect(await ofType("can", "cancelled")).toEqual([
      expect.objectContaining({ reason: "wrong recipient", idempotencyKey: "c-1" }),
    ]);
    const other = await call(t.app, "POST", "/runs/can/cancel", { reason: "changed" }, key("c-1"));
    expectError(other, 409, "idempotency_key_reused");
  });

  it("a fork retried with its key is the same fork; the key with another input is 409", async () => {
    await rest("par", [DONE, { text: "Forked", stop: "stop" }, { text: "Twice", stop: "stop" }]);
    const first = await call(t.app, "POST", "/runs/par/fork", { input: "branch" }, key("f-1"));
    expect(first.status).toBe(202);
    const forkId = first.body.runId as string;
    expect(forkId).toMatch(/^idem-[0-9a-f]{32}$/);
    expect(await settled(t.app, forkId)).toMatchObject({ status: "completed", output: "Forked" });
    const retry = await call(t.app, "POST", "/runs/par/fork", { input: "branch" }, key("f-1"));
    expect(retry).toMatchObject({ status: 202, body: { runId: forkId, output: "Forked" } });
    expect(await ofType(forkId, "resumed")).toHaveLength(1);
    expect((await events(forkId))[0]).toMatchObject({ type: "run_started", idempotencyKey: "f-1" });
    const other = await call(t.app, "POST", "/runs/par/fork", { input: "elsewhere" }, key("f-1"));
    expectError(other, 409, "idempotency_key_reused");
    // The same key on another run is another fork.
    await rest("par2", [DONE, { text: "Other", stop: "stop" }]);
    const elsewhere = await call(t.app, "POST", "/runs/par2/fork", { input: "branch" }, key("f-1"));
    expect(elsewhere.body.runId).not.toBe(forkId);
  });
});
