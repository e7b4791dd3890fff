import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import OpenAI from "openai";
import { afterEach, beforeEach } from "vitest";

/**
 * A loopback OpenAI-compatible server for tests: it speaks the real Chat Completions
 * HTTP and SSE protocol, answers each request with the next scripted reply, and
 * records every request so tests can check what the client sent.
 */

/** One `delta` of a streamed choice, as the wire carries it. */
export interface FakeDelta {
  role?: "assistant";
  content?: string | null;
  refusal?: string;
  tool_calls?: Array<{
    index: number;
    id?: string;
    type?: "function";
    function?: { name?: string; arguments?: string };
  }>;
  function_call?: { name?: string; arguments?: string };
}

export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export type FakeReply =
  | {
      kind: "stream";
      deltas: FakeDelta[];
      /** How the stream ends: a finish reason then usage and [DONE], a destroyed socket, or silence. */
      ending:
        | { finishReason: string; usage?: FakeUsage }
        | { drop: true }
        | { hang: true }
        /** An error event inside the stream, as OpenAI and vLLM send when generation fails. */
        | { error: { message: string; code: string | number | null; type?: string } };
      /** Called once the deltas are written (for a test that acts mid-stream). */
      written?: () => void;
      /** A pause before each delta after the first, as a slow model streams (ms). */
      gapMs?: number;
      /** Called after each delta is written, with how many are written so far. */
      sent?: (count: number) => void;
    }
  | { kind: "error"; status: number; body: unknown; headers?: Record<string, string> }
  /** Destroy the connection before sending a response. */
  | { kind: "hangup" }
  /** Never answer (until the server closes). */
  | { kind: "silent" };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown> & { messages?: unknown[]; tools?: unknown[] };
}

export interface FakeOpenAI {
  /** Queue replies, served one per request in order. */
  enqueue(...replies: FakeReply[]): FakeOpenAI;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  readonly requestCount: number;
  start(): Promise<{ baseURL: string; close: () => Promise<void> }>;
}

/** `apiKey`: the one key it accepts (any, when not given); a request with another gets OpenAI's 401. */
export function createFakeOpenAI({ apiKey }: { apiKey?: string } = {}): FakeOpenAI {
  const queue: FakeReply[] = [];
  const requests: RecordedRequest[] = [];

  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const body = raw.length > 0 ? JSON.parse(raw) : {};
    requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      return sendJSON(res, 404, errorBody(`fake OpenAI: no route ${req.method} ${req.url}`, null));
    }
    if (apiKey !== undefined && req.headers.authorization !== `Bearer ${apiKey}`) {
      return sendJSON(res, 401, errorBody("Incorrect API key provided", "invalid_api_key"));
    }
    const reply = queue.shift();
    if (!reply) {
      const message = `fake OpenAI: no scripted reply left for request ${requests.length}`;
      return sendJSON(res, 400, errorBody(message, null), { "x-should-retry": "false" });
    }
    await serve(reply, res, body, requests.length);
  });

  return {
    enqueue(...replies) {
      queue.push(...replies);
      return this;
    },
    requests,
    get requestCount() {
      return requests.length;
    },
    async start() {
      server.listen(0, "127.0.0.1");
      await once(server, "listening");
      const { port } = server.address() as AddressInfo;
      return {
        baseURL: `http://127.0.0.1:${port}/v1`,
        close: async () => {
          server.closeAllConnections();
          await new Promise<void>((resolve) => server.close(() => resolve()));
        },
      };
    },
  };
}

async function serve(
  reply: FakeReply,
  res: ServerResponse,
  request: Record<string, unknown>,
  n: number,
): Promise<void> {
  switch (reply.kind) {
    case "hangup":
      res.socket?.destroy();
      return;
    case "silent":
      return;
    case "error":
      sendJSON(res, reply.status, reply.body, reply.headers);
      return;
    case "stream": {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const model = typeof request.model === "string" ? request.model : "fake";
      const chunk = (choices: unknown[], usage: unknown = null) =>
        `data: ${JSON.stringify({ id: `chatcmpl-fake-${n}`, object: "chat.completion.chunk", created: 1, model, choices, usage })}\n\n`;
      const choice = (delta: FakeDelta, finishReason: string | null) => ({
        index: 0,
        delta,
        logprobs: null,
        finish_reason: finishReason,
      });
      for (const [i, delta] of reply.deltas.entries()) {
        if (i > 0 && reply.gapMs) await sleep(reply.gapMs);
        // The client went away (it was killed): nothing more reaches anyone.
        if (res.destroyed) return;
        res.write(chunk([choice(delta, null)]));
        reply.sent?.(i + 1);
      }
      const { ending } = reply;
      if ("drop" in ending) {
        // Let what was written reach the client, then cut the connection mid-stream.
        res.write("", () => {
          reply.written?.();
          setImmediate(() => res.socket?.destroy());
        });
      } else if ("hang" in ending) {
        res.write("", () => reply.written?.());
      } else if ("error" in ending) {
        res.end(`data: ${JSON.stringify({ error: ending.error })}\n\n`, () => reply.written?.());
      } else {
        res.write(chunk([choice({}, ending.finishReason)]));
        const options = request.stream_options as { include_usage?: boolean } | undefined;
        if (options?.include_usage) {
          const usage = ending.usage ?? { prompt_tokens: 11, completion_tokens: 7 };
          res.write(chunk([], { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens }));
        }
        res.end("data: [DONE]\n\n", () => reply.written?.());
      }
      return;
    }
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function sendJSON(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** OpenAI's error body shape. */
export function errorBody(message: string, code: string | null, type = "invalid_request_error") {
  return { error: { message, type, param: null, code } };
}

// Replies, shaped the way OpenAI sends them.

const firstDelta = (delta: FakeDelta): FakeDelta => ({ role: "assistant", ...delta });
const contentDeltas = (parts: string[]) =>
  parts.map((content, i) => (i === 0 ? firstDelta({ content }) : { content }));

/** A normal answer: the text arrives in the given pieces. */
export function textReply(parts: string[], finishReason = "stop", usage?: FakeUsage): FakeReply {
  const deltas = contentDeltas(parts);
  return { kind: "stream", deltas, ending: usage ? { finishReason, usage } : { finishReason } };
}

/** A refusal: OpenAI streams it in `refusal` deltas and ends with finish_reason "stop". */
export function refusalReply(parts: string[]): FakeReply {
  const deltas = parts.map((refusal, i) => (i === 0 ? firstDelta({ refusal }) : { refusal }));
  return { kind: "stream", deltas, ending: { finishReason: "stop" } };
}

export interface FakeCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Parallel tool calls the hard way: each call's id and name come in its first delta and
 * its arguments in pieces of `pieceSize` characters, one per chunk, the calls interleaved.
 */
export function toolCallsReply(
  calls: FakeCall[],
  { pieceSize = 3, text = "", finishReason = "tool_calls" } = {},
) {
  const streams = calls.map((call, index) => {
    const pieces: FakeDelta[] = [
      {
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
      },
    ];
    for (let at = 0; at < call.arguments.length; at += pieceSize) {
      pieces.push({
        tool_calls: [{ index, function: { arguments: call.arguments.slice(at, at + pieceSize) } }],
      });
    }
    return pieces;
  });
  const deltas: FakeDelta[] = text ? [firstDelta({ content: text })] : [firstDelta({ content: null })];
  for (let i = 0; streams.some((pieces) => i < pieces.length); i++) {
    for (const pieces of streams) if (pieces[i]) deltas.push(pieces[i]!);
  }
  return { kind: "stream", deltas, ending: { finishReason } } satisfies FakeReply;
}

/** Some text, then the connection is destroyed before the response finishes. */
export function droppedStream(parts: string[]): FakeReply {
  const deltas = contentDeltas(parts);
  return { kind: "stream", deltas, ending: { drop: true } };
}

/** Some text, then nothing more until the client gives up. */
export function stalledStream(parts: string[], written?: () => void): FakeReply {
  const deltas = contentDeltas(parts);
  return written
    ? { kind: "stream", deltas, ending: { hang: true }, written }
    : { kind: "stream", deltas, ending: { hang: true } };
}

export function errorReply(
  status: number,
  message: string,
  {
    code = null as string | null,
    type = "invalid_request_error",
    headers = {} as Record<string, string>,
  } = {},
): FakeReply {
  return { kind: "error", status, body: errorBody(message, code, type), headers };
}

/** OpenAI's answer to a prompt longer than the context window. */
export const contextLengthError = () =>
  errorReply(
    400,
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 130517 tokens. Please reduce the length of the messages.",
    { code: "context_length_exceeded" },
  );

export const rateLimited = (retryAfter = "0") =>
  errorReply(429, "Rate limit reached for requests", {
    code: "rate_limit_exceeded",
    type: "requests",
    headers: { "retry-after": retryAfter },
  });

/** A 500 that tells the SDK to retry at once. */
export const serverError = () =>
  errorReply(500, "The server had an error while processing your request.", {
    type: "server_error",
    headers: { "retry-after-ms": "0" },
  });

export const unauthorized = () =>
  errorReply(
    401,
    "Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys.",
    {
      code: "invalid_api_key",
    },
  );

export const hangup = (): FakeReply => ({ kind: "hangup" });
export const silent = (): FakeReply => ({ kind: "silent" });

/** Some text, then an error event in place of the rest of the stream. */
export function streamError(
  parts: string[],
  message: string,
  code: string | number | null = null,
): FakeReply {
  const deltas = contentDeltas(parts);
  return { kind: "stream", deltas, ending: { error: { message, code, type: "server_error" } } };
}

/** A fake server of its own for each test of the calling file: `fake` scripts it, `baseURL` reaches it. */
export function useFakeOpenAI(): { readonly fake: FakeOpenAI; readonly baseURL: string } {
  let fake: FakeOpenAI | undefined;
  let server: { baseURL: string; close: () => Promise<void> } | undefined;
  beforeEach(async () => {
    fake = createFakeOpenAI();
    server = await fake.start();
  });
  afterEach(() => server?.close());
  return {
    get fake() {
      return fake!;
    },
    get baseURL() {
      return server!.baseURL;
    },
  };
}

/**
 * An OpenAI client of the fake at `baseURL` (requests allowed 10 minutes, so only a test's abort
 * ends one) whose `waitForAnswers(n)` resolves once it has received `n` responses (their
 * headers), and a moment more: a test can act while the SDK waits out a Retry-After after a 429,
 * rather than while the request is still on its way.
 */
export function watchedClient(baseURL: string): { client: OpenAI; waitForAnswers(n: number): Promise<void> } {
  let answers = 0;
  const counted: typeof fetch = async (url, init) => {
    const response = await fetch(url, init);
    answers += 1;
    return response;
  };
  return {
    client: new OpenAI({ apiKey: "sk-test", baseURL, fetch: counted, timeout: 600_000 }),
    async waitForAnswers(n) {
      while (answers < n) await sleep(5);
      // From the answer to the SDK's wait is promise callbacks only: one timer turn is past them.
      await sleep(20);
    },
  };
}
