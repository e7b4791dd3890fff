import { describe, expect, it } from "vitest";
import { createClient, RunlogClient } from "../../lib/client/client.ts";
import { InvalidInputError, PermanentError } from "../../lib/core/errors.ts";
import { failure } from "./thrown.ts";

/** The client as plain JavaScript sees it: any argument, of any type, or none. */
type Loose = Record<string, (...args: unknown[]) => unknown>;

const sent: string[] = [];
const fetchRecording: typeof fetch = async (input) => {
  sent.push(new URL(String(input)).pathname);
  return Response.json({ error: { code: "not_found", message: "no such run" } }, { status: 404 });
};
const client = createClient({ url: "http://127.0.0.1:9/", auth: { type: "none" }, fetch: fetchRecording });
const loose = client as unknown as Loose;

describe("ids a URL would resolve away", () => {
  it.each<[string, () => unknown, string]>([
    ["resumePoint(.)", () => client.resumePoint("."), "runId"],
    ["cancel(..)", () => client.cancel(".."), "runId"],
    ["get(..)", () => client.get(".."), "runId"],
    ["events(.)", () => client.events("."), "runId"],
    ["fork({runId: ..})", () => client.fork({ runId: ".." }), "runId"],
    ["resume({runId: .})", () => client.resume({ runId: "." }), "runId"],
    ["send(a/b)", () => client.send("a/b", "hi"), "runId"],
    ["follow(..)", () => loose.follow!(".."), "runId"],
    ["replayReport(..)", () => client.replayReport(".."), "batchId"],
    ["approve(r1, ..)", () => client.approve("r1", ".."), "callId"],
  ])("%s is an InvalidInputError naming %s, and nothing is sent", async (_, call, field) => {
    sent.length = 0;
    const error = await failure(call);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field });
    expect(sent).toEqual([]);
  });
});

describe("a 2xx answer that is not the API's JSON", () => {
  it.each([
    [
      "an HTML page",
      () => new Response("<!doctype html><p>viewer</p>", { headers: { "content-type": "text/html" } }),
      "text/html",
    ],
    [
      "JSON that does not parse",
      () => new Response("{not json", { headers: { "content-type": "application/json" } }),
      "application/json",
    ],
  ])(
    "%s is a runlog error naming the status and content type, not a SyntaxError",
    async (_, answer, type) => {
      const html = createClient({
        url: "http://127.0.0.1:9/",
        auth: { type: "none" },
        fetch: async () => answer(),
      });
      const error = await failure(() => html.replayReport("replays-0123456789abcdef"));
      expect(error).toBeInstanceOf(PermanentError);
      expect((error as Error).message).toContain("answered 200");
      expect((error as Error).message).toContain(type);
    },
  );
});

describe("client options", () => {
  const base = { url: "http://127.0.0.1:9/", auth: { type: "none" as const } };
  it.each<[string, unknown, string]>([
    ["a misspelled retry option", { retry: { attempmts: 3 } }, "retry.attempmts"],
    ["a misspelled client option", { retries: { attempts: 3 } }, "retries"],
    ["retry.attempts NaN", { retry: { attempts: Number.NaN } }, "retry.attempts"],
    ["retry.attempts -1", { retry: { attempts: -1 } }, "retry.attempts"],
    ["retry.attempts 0", { retry: { attempts: 0 } }, "retry.attempts"],
    ["retry.attempts 1.5", { retry: { attempts: 1.5 } }, "retry.attempts"],
    ['retry.attempts "3"', { retry: { attempts: "3" } }, "retry.attempts"],
    ["retry.maxDelayMs -1", { retry: { maxDelayMs: -1 } }, "retry.maxDelayMs"],
    ["retry.baseDelayMs NaN", { retry: { baseDelayMs: Number.NaN } }, "retry.baseDelayMs"],
    ["retry.sleep not a function", { retry: { sleep: 5 } }, "retry.sleep"],
    ["retry null", { retry: null }, "retry"],
    ["fetch not a function", { fetch: "fetch" }, "fetch"],
    ["auth.region empty", { url: "http://127.0.0.1:9/", auth: { type: "sigv4", region: "" } }, "auth.region"],
    [
      "auth.credentials a string",
      { auth: { type: "sigv4", region: "eu-west-1", credentials: "key" } },
      "auth.credentials",
    ],
  ])("%s is an InvalidInputError naming %s", (_, options, field) => {
    let thrown: unknown;
    try {
      new RunlogClient({ ...base, ...(options as object) } as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidInputError);
    expect(thrown).toMatchObject({ field });
  });

  it("good retry options are taken", () => {
    expect(() =>
      createClient({ ...base, retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 } }),
    ).not.toThrow();
  });
});
