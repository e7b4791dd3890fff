import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalRunlog } from "../../lib/api/local.ts";
import type { Runlog } from "../../lib/api/runlog.ts";
import { IdTakenError, InvalidInputError, NotFoundError } from "../../lib/core/errors.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { cleanup, library, script, tempDataDir } from "../support/cli.ts";

/** Runlog as plain JavaScript sees it: any argument, of any type, or none. */
type Loose = { [K in keyof Runlog]: (...args: unknown[]) => Promise<unknown> };

const dir = tempDataDir("input-checks");
let local: LocalRunlog;
let js: Loose;
/** A run waiting for a decision on call_0_0: every control method has something it could write to it. */
let before: RunEvent[];

beforeAll(async () => {
  local = await library(dir);
  js = local.runlog as unknown as Loose;
  const model = script(dir, "pause", [
    { toolCalls: [{ name: "send_email", arguments: { to: "ana@example.com", subject: "Lunch" } }] },
    { text: "Sent", stop: "stop" },
  ]);
  const paused = await local.runlog.start({ agent: "demo", input: "email Ana", model, runId: "kept" });
  expect(paused.status).toBe("paused");
  before = await local.runlog.events("kept");
});
afterAll(() => cleanup(dir));

const failure = (call: () => Promise<unknown>) =>
  call().then(
    () => undefined,
    (error: unknown) => error,
  );

describe("Runlog called from JavaScript with what TypeScript would refuse", () => {
  it.each<[string, () => Promise<unknown>, string]>([
    ["cancel without its actor", () => js.cancel("kept"), "actor"],
    ["cancel by nobody", () => js.cancel("kept", {}), "actor.by"],
    ["cancel by a number", () => js.cancel("kept", { by: 5 }), "actor.by"],
    [
      "cancel with a reason that is not text",
      () => js.cancel("kept", { by: "ana", reason: 5 }),
      "actor.reason",
    ],
    ["cancel of no run", () => js.cancel(undefined, { by: "ana" }), "runId"],
    [
      "cancel with an idempotency key that is a number",
      () => js.cancel("kept", { by: "ana" }, { idempotencyKey: 5 }),
      "options.idempotencyKey",
    ],
    ["cancel with options that are text", () => js.cancel("kept", { by: "ana" }, "k"), "options"],
    [
      "approve with an idempotency key of control characters",
      () => js.approve("kept", "call_0_0", { by: "ana" }, { idempotencyKey: "a\nb" }),
      "options.idempotencyKey",
    ],
    [
      "send with an empty idempotency key",
      () => js.send("kept", "hi", { idempotencyKey: "" }),
      "options.idempotencyKey",
    ],
    [
      "fork with an idempotency key too long",
      () => js.fork({ runId: "kept", idempotencyKey: "k".repeat(256) }),
      "idempotencyKey",
    ],
    ["approve without its actor", () => js.approve("kept", "call_0_0"), "actor"],
    ["approve by a blank name", () => js.approve("kept", "call_0_0", { by: "  " }), "actor.by"],
    ["approve of no call", () => js.approve("kept", undefined, { by: "ana" }), "callId"],
    ["reject without its actor", () => js.reject("kept", "call_0_0", null), "actor"],
    ["start with no request", () => js.start(), "request"],
    ["start of no agent", () => js.start({ input: "hi" }), "agent"],
    ["start with no input", () => js.start({ agent: "demo" }), "input"],
    ["start with a numeric model", () => js.start({ agent: "demo", input: "hi", model: 4 }), "model"],
    ["start under a numeric run id", () => js.start({ agent: "demo", input: "hi", runId: 7 }), "runId"],
    ["resume with no request", () => js.resume(), "request"],
    ["resume of no run", () => js.resume({}), "runId"],
    ["resume with input that is not text", () => js.resume({ runId: "kept", input: 5 }), "input"],
    ["send with no message", () => js.send("kept"), "message"],
    ["send to no run", () => js.send(undefined, "hi"), "runId"],
    ["fork of no run", () => js.fork({}), "runId"],
    ["fork at a seq given as text", () => js.fork({ runId: "kept", atSeq: "2" }), "atSeq"],
    ["fork under a numeric id", () => js.fork({ runId: "kept", forkId: 7 }), "forkId"],
    ["sweep with null options", () => js.sweep(null), "options"],
    ["sweep of at most 0 runs", () => js.sweep({ maxRuns: 0 }), "maxRuns"],
    ["sweep of statuses not in a list", () => js.sweep({ statuses: "running" }), "statuses"],
    ["redrive with null options", () => js.redrive(null), "request"],
    ["redrive since a duration given as text", () => js.redrive({ sinceMs: "2h" }), "sinceMs"],
    ["redrive of a numeric agent", () => js.redrive({ agent: 7 }), "agent"],
    ["redrive dry run given as text", () => js.redrive({ dryRun: "yes" }), "dryRun"],
    ["redrive with no concurrency", () => js.redrive({ concurrency: 0 }), "concurrency"],
    ["redrive at a fractional rate", () => js.redrive({ perSecond: 0.5 }), "perSecond"],
    ["outcome of no run", () => js.outcome(), "runId"],
    ["resumePoint of a number", () => js.resumePoint(5), "runId"],
    ["events after a seq given as text", () => js.events("kept", "1"), "afterSeq"],
    ["eventPage with no request", () => js.eventPage("kept"), "request"],
    ["event at a seq given as text", () => js.event("kept", "2"), "seq"],
    ["list with a limit given as text", () => js.list({ limit: "5" }), "limit"],
    ["list of an unknown status", () => js.list({ status: "nope" }), "status"],
  ])("%s is an InvalidInputError naming its field, and writes nothing", async (_label, call, field) => {
    const error = await failure(call);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ code: "invalid_input", field });
    expect((error as Error).message).toContain(field);
    expect(await local.runlog.events("kept")).toEqual(before);
  });

  it("left no run behind", async () => {
    expect((await local.runlog.list()).runs.map((run) => run.runId)).toEqual(["kept"]);
  });
});

describe("errors carry their facts as fields", () => {
  it("an unknown run is a NotFoundError with its runId", async () => {
    const error = await failure(() => local.runlog.outcome("nobody"));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ code: "not_found", runId: "nobody" });
  });

  it("a missing event is a NotFoundError with its runId and seq", async () => {
    const error = await failure(() => local.runlog.event("kept", 99));
    expect(error).toMatchObject({ code: "not_found", runId: "kept", seq: 99 });
  });

  it("a run id taken by another start is an IdTakenError with the id and what differs", async () => {
    const error = await failure(() =>
      local.runlog.start({ agent: "demo", input: "something else", runId: "kept" }),
    );
    expect(error).toBeInstanceOf(IdTakenError);
    expect(error).toMatchObject({ code: "id_taken", id: "kept", runId: "kept" });
    expect((error as IdTakenError).differences.some((difference) => difference.startsWith("input"))).toBe(
      true,
    );
    expect(await local.runlog.events("kept")).toEqual(before);
  });
});
