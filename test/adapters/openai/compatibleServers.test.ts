import { once } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOpenAIModel } from "../../../lib/adapters/openai/index.ts";
import { ModelRejectedError } from "../../../lib/core/errors.ts";
import type { ModelRequest } from "../../../lib/ports/model.ts";
import { rejectionOf } from "../../support/thrown.ts";

/**
 * Servers that speak Chat Completions their own way, answered byte for byte as they do: tool
 * calls without `index` (Gemini's OpenAI-compatible endpoint), every call at `index: 0` (Ollama),
 * and servers that do not stream at all. test/helpers/fakeOpenAI.ts speaks only OpenAI's own way.
 */

type Answer = (res: ServerResponse) => void;

let answers: Answer[] = [];
let requests = 0;
let server: Server;
let baseURL: string;

beforeEach(async () => {
  answers = [];
  requests = 0;
  server = createServer(async (req, res) => {
    for await (const _ of req); // the body, unread
    requests += 1;
    const answer = answers.shift();
    if (answer) return answer(res);
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: "no answer queued", type: "invalid_request_error" } }));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const request: ModelRequest = {
  runId: "run-1",
  turn: 2,
  instructions: "",
  messages: [{ role: "user", content: "Note two things." }],
  tools: [],
};

/** One call of the model, with no retries of the SDK's own: each answer is seen as it comes. */
function call(...queued: Answer[]) {
  answers.push(...queued);
  return createOpenAIModel({ model: "gpt-test", apiKey: "sk-test", baseURL, maxRetries: 0 }).call(request);
}

type Part = {
  index?: number;
  id?: string;
  type?: "function";
  function?: { name?: string; arguments?: string };
};

const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1,
  model: "gpt-test",
  choices: [{ index: 0, delta, finish_reason: finishReason }],
});

/** A stream of one tool-calling turn: each element is the `tool_calls` of one chunk. */
const callChunks =
  (...chunks: Part[][]): Answer =>
  (res) =>
    sse(res, [
      ...chunks.map((parts, i) => chunk({ ...(i === 0 && { role: "assistant" }), tool_calls: parts })),
      chunk({}, "tool_calls"),
    ]);

function sse(res: ServerResponse, chunks: unknown[], contentType = "text/event-stream") {
  res.writeHead(200, { "content-type": contentType });
  for (const each of chunks) res.write(`data: ${JSON.stringify(each)}\n\n`);
  res.end("data: [DONE]\n\n");
}

const whole = (id: string, text: string, index?: number): Part => ({
  ...(index !== undefined && { index }),
  id,
  type: "function",
  function: { name: "note", arguments: JSON.stringify({ text }) },
});

const first = { id: "call_1", name: "note", arguments: '{"text":"first"}' };
const second = { id: "call_2", name: "note", arguments: '{"text":"second"}' };

describe("OpenAI-compatible servers: parallel tool calls numbered their own way", () => {
  it("calls sent whole without an index, one chunk each (Gemini), are two calls", async () => {
    const reply = await call(callChunks([whole("call_1", "first")], [whole("call_2", "second")]));
    expect(reply).toMatchObject({ stop: "tool_calls", toolCalls: [first, second] });
  });

  it("calls sent whole all at index 0, one chunk each (Ollama), are two calls", async () => {
    const reply = await call(callChunks([whole("call_1", "first", 0)], [whole("call_2", "second", 0)]));
    expect(reply).toMatchObject({ stop: "tool_calls", toolCalls: [first, second] });
  });

  it("calls without an index in one chunk are two calls", async () => {
    const reply = await call(callChunks([whole("call_1", "first"), whole("call_2", "second")]));
    expect(reply.toolCalls).toEqual([first, second]);
  });

  it("a fragment without an index continues the call of its id, or the last call when it has no id", async () => {
    const reply = await call(
      callChunks(
        [{ id: "call_1", type: "function", function: { name: "note", arguments: '{"te' } }],
        [{ id: "call_2", type: "function", function: { name: "note", arguments: '{"text":' } }],
        [{ id: "call_1", function: { arguments: 'xt":"first"}' } }],
        [{ id: "call_2", function: { arguments: '"sec' } }],
        [{ function: { arguments: 'ond"}' } }],
      ),
    );
    expect(reply.toolCalls).toEqual([first, second]);
  });

  it("an index that holds a call with another id continues the new call after it", async () => {
    const reply = await call(
      callChunks(
        [{ index: 0, id: "call_1", type: "function", function: { name: "note", arguments: "" } }],
        [{ index: 0, function: { arguments: '{"text":"first"}' } }],
        [{ index: 0, id: "call_2", type: "function", function: { name: "note", arguments: '{"text":' } }],
        [{ index: 0, function: { arguments: '"second"}' } }],
      ),
    );
    expect(reply.toolCalls).toEqual([first, second]);
  });

  it("two fragments without index or id in one chunk are two calls, named by their places", async () => {
    const unnamed = (text: string): Part => ({
      function: { name: "note", arguments: JSON.stringify({ text }) },
    });
    const reply = await call(callChunks([unnamed("first"), unnamed("second")]));
    expect(reply.toolCalls).toEqual([
      { ...first, id: "call_2_0" },
      { ...second, id: "call_2_1" },
    ]);
  });

  it("calls sent whole without index or id, one chunk each, are two calls: a name begins a call", async () => {
    const unnamed = (text: string): Part => ({
      function: { name: "note", arguments: JSON.stringify({ text }) },
    });
    const reply = await call(callChunks([unnamed("first")], [unnamed("second")]));
    expect(reply.toolCalls).toEqual([
      { ...first, id: "call_2_0" },
      { ...second, id: "call_2_1" },
    ]);
  });
});

describe("OpenAI-compatible servers: an endpoint that does not stream", () => {
  const completion = {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1,
    model: "gpt-test",
    choices: [{ index: 0, message: { role: "assistant", content: "a whole answer" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 },
  };

  it.each([
    {
      answered: "a complete JSON chat.completion (stream: true ignored)",
      contentType: "application/json",
      body: JSON.stringify(completion),
    },
    {
      answered: "an HTML page with status 200 (a proxy's login page)",
      contentType: "text/html; charset=utf-8",
      body: "<html><body>Sign in to continue</body></html>",
    },
  ])("$answered is refused once, naming the endpoint and what it answered", async ({ contentType, body }) => {
    const error = await rejectionOf(
      call((res) => {
        res.writeHead(200, { "content-type": contentType });
        res.end(body);
      }),
    );
    expect(error).toBeInstanceOf(ModelRejectedError);
    expect(error.message).toBe(
      `openai:gpt-test cannot be used at ${baseURL}: the endpoint answered with content-type ${contentType}, not an event stream (text/event-stream): runlog streams every call (stream: true), so the endpoint must stream Chat Completions`,
    );
    expect(requests).toBe(1);
  });

  it("a server that streams under another content type is still read", async () => {
    const reply = await call((res) =>
      sse(res, [chunk({ role: "assistant", content: "streamed" }), chunk({}, "stop")], "application/json"),
    );
    expect(reply).toMatchObject({ text: "streamed", stop: "stop" });
  });
});
