import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTINUE_RESPONSE_NOTE, RETRY_RESPONSE_NOTE } from "../../lib/core/messages.ts";
import {
  contextLengthError,
  createFakeOpenAI,
  droppedStream,
  errorReply,
  rateLimited,
  refusalReply,
  textReply,
  toolCallsReply,
  unauthorized,
} from "../helpers/fakeOpenAI.ts";
import { cleanup, events, notes, runlogJson, tempDataDir } from "../support/cli.ts";

/** The real CLI against a local OpenAI-compatible server speaking HTTP + SSE. */
const dir = tempDataDir("openai-e2e");
const fake = createFakeOpenAI();
let server: { baseURL: string; close: () => Promise<void> };
const MODEL = "openai:gpt-test";

beforeAll(async () => {
  server = await fake.start();
});
afterAll(async () => {
  await server.close();
  await cleanup(dir);
});

const env = (key = "sk-test") => ({ OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: key });
const run = (runId: string) =>
  runlogJson(dir, ["run", "--run-id", runId, "--model", MODEL, "Tell me a story"], env());
const point = async (runId: string) => (await runlogJson(dir, ["resume-point", runId], env())).json;
const lastBody = () => fake.requests.at(-1)!.body;

describe("every ending of a real provider lands in the right row", () => {
  it.each([
    [
      "finish_reason stop",
      textReply(["Once ", "upon a time."]),
      "completed",
      { resumable: false, reason: "completed" },
    ],
    ["content_filter", textReply(["Once"], "content_filter"), "refused", { reason: "refused" }],
    ["a refusal", refusalReply(["I can't ", "help with that."]), "refused", { reason: "refused" }],
    ["a context-length error", contextLengthError(), "context_full", { reason: "context_full" }],
    [
      "an unknown finish_reason",
      textReply(["Once"], "pause_turn"),
      "unknown_stop",
      { reason: "unknown_stop" },
    ],
  ])("%s", async (name, reply, status, expected) => {
    fake.enqueue(reply);
    const runId = `ending-${name.replace(/\W+/g, "-")}`;
    const result = await run(runId);
    expect(result.json).toMatchObject({ runId, status });
    expect(await point(runId)).toMatchObject(expected);
  });

  it("length: kept, and resume asks the model to continue exactly where it stopped", async () => {
    fake.enqueue(textReply(["Once upon"], "length", { prompt_tokens: 12, completion_tokens: 3 }));
    expect((await run("ending-length")).json).toMatchObject({ status: "interrupted" });
    expect(await point("ending-length")).toMatchObject({ resumable: true, kind: "continue_response" });
    const [response] = (await events(dir, "ending-length")).filter((e) => e.type === "model_response");
    expect(response).toMatchObject({
      stop: "max_output",
      text: "Once upon",
      usage: { inputTokens: 12, outputTokens: 3 },
    });

    fake.enqueue(textReply([" a time."]));
    const resumed = await runlogJson(dir, ["resume", "ending-length"], env());
    // The answer is the cut text and its continuation, as one.
    expect(resumed.json).toMatchObject({ status: "completed", output: "Once upon a time." });
    expect(JSON.stringify(lastBody().messages)).toContain(CONTINUE_RESPONSE_NOTE);
  });

  it("a stream dropped after partial text: the text is kept, resume retries the response, and it completes", async () => {
    fake.enqueue(droppedStream(["Once ", "upon"]));
    expect((await run("dropped")).json).toMatchObject({ status: "interrupted" });
    const log = await events(dir, "dropped");
    expect(log.at(-1)).toMatchObject({ type: "model_response", stop: "interrupted", text: "Once upon" });
    expect(await point("dropped")).toMatchObject({ resumable: true, kind: "retry_response" });

    fake.enqueue(textReply(["Once upon a time."]));
    const resumed = await runlogJson(dir, ["resume", "dropped"], env());
    expect(resumed.json).toMatchObject({
      runId: "dropped",
      status: "completed",
      output: "Once upon a time.",
    });
    const sent = JSON.stringify(lastBody().messages);
    expect(sent).toContain("Once upon");
    expect(sent).toContain(RETRY_RESPONSE_NOTE);
  });
});

describe("tools, retries and failures through the provider", () => {
  it("parallel tool calls streamed in pieces run, and the run completes", async () => {
    fake.enqueue(
      toolCallsReply([
        { id: "c1", name: "write_note", arguments: '{"text":"from the provider"}' },
        { id: "c2", name: "get_weather", arguments: '{"city":"Oslo"}' },
      ]),
      textReply(["All done."]),
    );
    expect((await run("tools")).json).toMatchObject({ status: "completed", output: "All done." });
    expect(notes(dir)).toEqual(["from the provider"]);
    const tools = (lastBody().messages as { role: string; tool_call_id?: string }[]).filter(
      (m) => m.role === "tool",
    );
    expect(tools.map((m) => m.tool_call_id).sort()).toEqual(["c1", "c2"]);
  });

  it("429 then success: one model_response, no duplicate events", async () => {
    const before = fake.requestCount;
    fake.enqueue(rateLimited("0"), textReply(["Fine."]));
    expect((await run("rate-limited")).json).toMatchObject({ status: "completed", output: "Fine." });
    expect(fake.requestCount - before).toBe(2);
    expect((await events(dir, "rate-limited")).map((e) => e.type)).toEqual(["run_started", "model_response"]);
  });

  it("a provider error echoing the key stores and prints it redacted, whatever the key's shape", async () => {
    for (const [runId, key] of [
      ["echo-sk", "sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2"],
      ["echo-own", "gateway-key-of-our-own-7f3e9a"],
    ] as const) {
      fake.enqueue(
        errorReply(
          401,
          `Incorrect API key provided: ${key}. You can find your API key at https://example.test.`,
          {
            code: "invalid_api_key",
          },
        ),
      );
      const failed = await runlogJson(dir, ["run", "--run-id", runId, "--model", MODEL, "hi"], env(key));
      expect(failed.json).toMatchObject({ runId, status: "failed" });
      const stored = JSON.stringify(await events(dir, runId));
      expect(stored).toContain("Incorrect API key provided: [redacted:");
      expect(stored).not.toContain(key);
      expect(failed.stderr + JSON.stringify(failed.json)).not.toContain(key);
    }
  });

  it("401: a clear permanent error, the input kept, and resume with a valid key finishes the same run", async () => {
    const before = fake.requestCount;
    fake.enqueue(unauthorized());
    const failed = await runlogJson(
      dir,
      ["run", "--run-id", "bad-key", "--model", MODEL, "hi"],
      env("sk-wrong"),
    );
    expect(failed.code).toBe(1);
    expect(failed.json).toMatchObject({ runId: "bad-key", status: "failed" });
    expect(fake.requestCount - before).toBe(1);
    const log = await events(dir, "bad-key");
    expect(log.map((e) => e.type)).toEqual(["run_started", "model_failed"]);
    expect(log[1]).toMatchObject({ retryable: false, error: { name: "ModelRejectedError" } });
    expect(JSON.stringify(log[1])).toMatch(/401/);

    fake.enqueue(textReply(["Hello!"]));
    const resumed = await runlogJson(
      dir,
      ["resume", "bad-key", "--model", "openai:gpt-other"],
      env("sk-good"),
    );
    expect(resumed.json).toMatchObject({ runId: "bad-key", status: "completed", output: "Hello!" });
    expect(fake.requests.at(-1)!.headers.authorization).toBe("Bearer sk-good");
    expect(lastBody().model).toBe("gpt-other");
    expect((await events(dir, "bad-key")).find((e) => e.type === "resumed")).toMatchObject({
      model: "openai:gpt-other",
    });
  });
});
