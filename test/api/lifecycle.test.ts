import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalRunlog } from "../../lib/api/local.ts";
import { classify } from "../../lib/core/classify.ts";
import { IdempotencyKeyReusedError, IdTakenError, NotFoundError } from "../../lib/core/errors.ts";
import { localPrincipal } from "../../lib/runtime/local/localPrincipal.ts";
import { cleanup, library, script, tempDataDir, testEnv } from "../support/cli.ts";
import { connectStore } from "../support/store.ts";

/** The run lifecycle through the library API, in process, on the local (SQLite) store. */
const dir = tempDataDir("lifecycle-api");
let local: LocalRunlog;
beforeAll(async () => {
  local = await library(dir);
});
afterAll(() => cleanup(dir));

const lines = (file: string) => {
  try {
    return readFileSync(join(dir, file), "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
};
const EMAIL = { name: "send_email", arguments: { to: "ana@example.com", subject: "Lunch" } };
const NOTE = { name: "write_note", arguments: { text: "lunch booked" } };
const DONE = { text: "Done", stop: "stop" };

describe("human approval", () => {
  it("runs the ordinary call, pauses for the other, and resumes by itself once approved", async () => {
    const model = script(dir, "approve", [{ toolCalls: [EMAIL, NOTE] }, DONE]);
    const paused = await local.runlog.start({ agent: "demo", input: "email Ana", model, runId: "approve" });
    expect(paused).toMatchObject({ status: "paused", output: null });
    expect(lines("notes.txt")).toEqual(["lunch booked"]);
    expect(lines("outbox.txt")).toEqual([]);
    const point = await local.runlog.resumePoint("approve");
    expect(point).toMatchObject({ resumable: false, reason: "awaiting_approval" });
    expect(
      !point.resumable && "waitingToolCalls" in point && point.waitingToolCalls?.map((c) => c.id),
    ).toEqual(["call_0_0"]);

    const done = await local.runlog.approve("approve", "call_0_0", { by: "ana", reason: "fine" });
    expect(done).toMatchObject({ status: "completed", output: "Done" });
    expect(lines("outbox.txt")).toEqual(["ana@example.com|Lunch"]);
    const log = await local.runlog.events("approve");
    expect(log.find((e) => e.type === "tool_decided")).toMatchObject({
      callId: "call_0_0",
      approved: true,
      // The local user decided; the name it gave is kept beside it.
      by: localPrincipal().id,
      onBehalfOf: "ana",
      reason: "fine",
    });
  });

  it("a rejection is answered to the model, which goes on; nothing is sent", async () => {
    const model = script(dir, "reject", [
      { toolCalls: [{ ...EMAIL, arguments: { to: "bo@example.com", subject: "x" } }] },
      DONE,
    ]);
    await local.runlog.start({ agent: "demo", input: "email Bo", model, runId: "reject" });
    const done = await local.runlog.reject("reject", "call_0_0", { by: "ana", reason: "not now" });
    expect(done).toMatchObject({ status: "completed" });
    expect(lines("outbox.txt")).not.toContain("bo@example.com|x");
    const result = (await local.runlog.events("reject")).find((e) => e.type === "tool_result");
    expect(result).toMatchObject({
      isError: true,
      content: "This tool call was not run: ana rejected it: not now",
    });
  });

  it("a decision for an unknown or an already-decided call is a clear error that writes nothing", async () => {
    const before = await local.runlog.events("approve");
    await expect(local.runlog.approve("approve", "call_9_9", { by: "ana" })).rejects.toThrow(NotFoundError);
    await expect(local.runlog.approve("approve", "call_0_0", { by: "ana" })).rejects.toThrow(
      /already approved by local:.* for ana/,
    );
    await expect(local.runlog.approve("no-such-run", "call_0_0", { by: "ana" })).rejects.toThrow(/not found/);
    expect(await local.runlog.events("approve")).toEqual(before);

    const model = script(dir, "twice", [
      { toolCalls: [EMAIL, { ...EMAIL, arguments: { to: "cy@example.com", subject: "y" } }] },
      DONE,
    ]);
    await local.runlog.start({ agent: "demo", input: "two emails", model, runId: "twice" });
    await local.runlog.reject("twice", "call_0_1", { by: "ana" });
    await expect(local.runlog.approve("twice", "call_0_1", { by: "bo" })).rejects.toThrow(
      /already rejected by local:.* for ana/,
    );
    expect(await local.runlog.outcome("twice")).toMatchObject({ status: "paused" });
  });
});

describe("fork", () => {
  it("at every seq of a finished demo run: each fork classifies and completes; the parent never changes", async () => {
    await local.runlog.start({ agent: "demo", input: "Plan my afternoon", runId: "parent" });
    const parent = JSON.stringify(await local.runlog.events("parent"));
    const count = (await local.runlog.events("parent")).length;
    for (let seq = 1; seq <= count; seq++) {
      const fork = await local.runlog.fork({ runId: "parent", atSeq: seq, forkId: `parent-at-${seq}` });
      expect(fork, `fork at ${seq}`).toMatchObject({ runId: `parent-at-${seq}`, status: "completed" });
      const events = await local.runlog.events(fork.runId);
      expect(events[0]).toMatchObject({
        type: "run_started",
        runId: fork.runId,
        parent: { runId: "parent", seq },
      });
      expect(classify(events)).toMatchObject({ resumable: false, reason: "completed" });
    }
    expect(JSON.stringify(await local.runlog.events("parent"))).toBe(parent);
  });

  it("of a finished run without input is an identical copy that calls no model", async () => {
    const copy = await local.runlog.fork({ runId: "parent", forkId: "copy" });
    expect(copy).toMatchObject({ status: "completed" });
    const [first, ...rest] = await local.runlog.events("copy");
    const [origin, ...parentRest] = await local.runlog.events("parent");
    expect(rest).toEqual(parentRest);
    // Its own creation time: the listing and the viewer say when the fork was made, not its parent.
    expect(first).toEqual({ ...origin, runId: "copy", parent: { runId: "parent", seq: 10 }, at: first!.at });
    expect(Date.parse(first!.at)).toBeGreaterThan(Date.parse(origin!.at));
    const listed = (await local.runlog.list({ parent: "parent" })).runs.find((run) => run.runId === "copy");
    expect(listed?.createdAt).toBe(first!.at);
  });

  it("with input continues the copy with that message", async () => {
    const model = script(dir, "fork-input", [DONE, { text: "Second answer", stop: "stop" }]);
    await local.runlog.start({ agent: "demo", input: "first", model, runId: "fork-input" });
    const fork = await local.runlog.fork({
      runId: "fork-input",
      input: "and again?",
      forkId: "fork-input-2",
    });
    expect(fork).toMatchObject({ status: "completed", output: "Second answer" });
    expect((await local.runlog.events("fork-input-2")).at(-2)).toMatchObject({
      type: "resumed",
      input: "and again?",
    });
  });

  it("retried after its copy stopped half way, in the process that wrote the parent, completes", async () => {
    const model = script(dir, "half-parent", [{ toolCalls: [NOTE] }, DONE]);
    await local.runlog.start({ agent: "demo", input: "note it", model, runId: "half-parent" });
    // The first attempt copied seq 2 and stopped. This process still holds the parent's events as it
    // wrote them; the copy comes back from the store: the same events, their keys in another order.
    const [, second] = await local.runlog.events("half-parent");
    const { store, close } = await connectStore({ dataDir: dir, env: testEnv() });
    await store.append("half-fork", second!);
    await close();
    const fork = await local.runlog.fork({ runId: "half-parent", forkId: "half-fork" });
    expect(fork).toMatchObject({ runId: "half-fork", status: "completed" });
    expect((await local.runlog.events("half-fork")).map((e) => e.type)).toEqual(
      (await local.runlog.events("half-parent")).map((e) => e.type),
    );
  });

  it("the same fork again converges; a taken fork id or a seq out of range is a clear error", async () => {
    const again = await local.runlog.fork({ runId: "parent", forkId: "copy" });
    expect(again).toMatchObject({ runId: "copy" });
    await expect(local.runlog.fork({ runId: "parent", forkId: "copy", atSeq: 2 })).rejects.toThrow(
      IdTakenError,
    );
    await expect(local.runlog.fork({ runId: "parent", forkId: "parent" })).rejects.toThrow(/id of its own/);
    await expect(local.runlog.fork({ runId: "parent", atSeq: 99 })).rejects.toThrow(
      /atSeq must be a whole number from 1 to 10/,
    );
  });

  it("an identical copy's id asked again with input is taken: the copy is not made to go on", async () => {
    await local.runlog.fork({ runId: "parent", forkId: "resting-copy" });
    const before = await local.runlog.events("resting-copy");
    const again = await local.runlog
      .fork({ runId: "parent", forkId: "resting-copy", input: "and now this?" })
      .catch((error: unknown) => error);
    expect(again).toBeInstanceOf(IdTakenError);
    expect((again as Error).message).toMatch(/fork id resting-copy is taken by a different run/);
    expect(await local.runlog.events("resting-copy")).toEqual(before);
  });

  it("a taken fork id given with a new key is the id taken, not the key reused; a key that names its fork is", async () => {
    const taken = await local.runlog
      .fork({ runId: "parent", forkId: "copy", atSeq: 2, idempotencyKey: "brand-new-key" })
      .catch((error: unknown) => error);
    expect(taken).toBeInstanceOf(IdTakenError);
    expect(taken).not.toBeInstanceOf(IdempotencyKeyReusedError);
    expect((taken as Error).message).toMatch(/fork id copy is taken by a different run/);

    await local.runlog.fork({ runId: "parent", atSeq: 3, idempotencyKey: "keyed-fork" });
    const reused = await local.runlog
      .fork({ runId: "parent", atSeq: 4, idempotencyKey: "keyed-fork" })
      .catch((error: unknown) => error);
    expect(reused).toBeInstanceOf(IdempotencyKeyReusedError);
  });
});

describe("send", () => {
  it("continues a completed run in the same run", async () => {
    const model = script(dir, "send", [DONE, { text: "You're welcome", stop: "stop" }]);
    await local.runlog.start({ agent: "demo", input: "hi", model, runId: "send" });
    expect(await local.runlog.send("send", "thanks!")).toMatchObject({
      runId: "send",
      status: "completed",
      output: "You're welcome",
    });
  });

  it("is refused on a cancelled run", async () => {
    const model = script(dir, "send-cancelled", [{ toolCalls: [EMAIL] }, DONE]);
    await local.runlog.start({ agent: "demo", input: "hi", model, runId: "send-cancelled" });
    await local.runlog.cancel("send-cancelled", { by: "ana" });
    await expect(local.runlog.send("send-cancelled", "more")).rejects.toThrow(/takes no more messages/);
    expect(await local.runlog.resumePoint("send-cancelled")).toMatchObject({ reason: "cancelled" });
  });
});
