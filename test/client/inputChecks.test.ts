import { describe, expect, it } from "vitest";
import { createClient } from "../../lib/client/client.ts";
import { InvalidInputError } from "../../lib/core/errors.ts";
import { failure } from "./thrown.ts";

/** The client as plain JavaScript sees it: any argument, of any type, or none. */
type Loose = Record<string, (...args: unknown[]) => unknown>;

const sent: string[] = [];
const client = createClient({
  url: "http://127.0.0.1:9/",
  auth: { type: "none" },
  fetch: async (input) => {
    sent.push(String(input));
    return Response.json({ error: { code: "not_found", message: "no such run" } }, { status: 404 });
  },
}) as unknown as Loose;

const ana = { by: "ana" };

describe("RunlogClient called from JavaScript with what TypeScript would refuse", () => {
  it.each<[string, () => unknown, string]>([
    ["start with no request", () => client.start!(), "request"],
    ["start with a request that is text", () => client.start!("hi"), "request"],
    [
      "start with options that are null",
      () => client.start!({ agent: "demo", input: "hi" }, null),
      "options",
    ],
    [
      "start with a numeric idempotency key",
      () => client.start!({ agent: "demo", input: "hi" }, { idempotencyKey: 5 }),
      "options.idempotencyKey",
    ],
    ["get with a signal that is not one", () => client.get!("r", { signal: "stop" }), "options.signal"],
    ["list with a null request", () => client.list!(null), "request"],
    ["list with options that are text", () => client.list!({}, "x"), "options"],
    ["eventPage with a null request", () => client.eventPage!("r", null), "request"],
    ["events after a seq given as text", () => client.events!("r", "1"), "afterSeq"],
    ["events after a negative seq", () => client.events!("r", -1), "afterSeq"],
    ["event with null options", () => client.event!("r", 1, null), "options"],
    ["resumePoint with options that are a number", () => client.resumePoint!("r", 5), "options"],
    ["resume with no request", () => client.resume!(), "request"],
    ["resume with null options", () => client.resume!({ runId: "r" }, null), "options"],
    ["send with null options", () => client.send!("r", "hi", null), "options"],
    [
      "send with a numeric idempotency key",
      () => client.send!("r", "hi", { idempotencyKey: 7 }),
      "options.idempotencyKey",
    ],
    ["fork with no request", () => client.fork!(), "request"],
    ["fork with a request that is an array", () => client.fork!(["r"]), "request"],
    ["approve by an actor that is text", () => client.approve!("r", "c", "ana"), "actor"],
    ["approve by a numeric name", () => client.approve!("r", "c", { by: 5 }), "actor.by"],
    ["reject with a reason that is not text", () => client.reject!("r", "c", { reason: 5 }), "actor.reason"],
    ["reject with null options", () => client.reject!("r", "c", ana, null), "options"],
    ["decide with null actor", () => client.decide!("r", "c", true, null), "actor"],
    ["cancel by an actor that is text", () => client.cancel!("r", "ana"), "actor"],
    [
      "cancel with a numeric idempotency key",
      () => client.cancel!("r", ana, { idempotencyKey: 1 }),
      "options.idempotencyKey",
    ],
    ["follow with null options", () => client.follow!("r", null), "options"],
    ["follow after a seq given as text", () => client.follow!("r", { after: "3" }), "options.after"],
    [
      "follow with an onDelta that is not a function",
      () => client.follow!("r", { onDelta: "x" }),
      "options.onDelta",
    ],
    ["lifecycle with null options", () => client.lifecycle!(null), "options"],
    ["lifecycle after an id that is a number", () => client.lifecycle!({ after: 5 }), "options.after"],
    [
      "lifecycle with an onMissed that is not a function",
      () => client.lifecycle!({ onMissed: 1 }),
      "options.onMissed",
    ],
  ])("%s is an InvalidInputError naming its field, and sends nothing", async (_label, call, field) => {
    sent.length = 0;
    const error = await failure(call);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ code: "invalid_input", field });
    expect((error as Error).message).toContain(field);
    expect(sent).toEqual([]);
  });
});
