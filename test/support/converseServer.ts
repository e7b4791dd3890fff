import { once } from "node:events";
import {
  constants,
  createServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type ServerHttp2Session,
} from "node:http2";
import type { AddressInfo } from "node:net";
import { EventStreamCodec, type MessageHeaders } from "@smithy/core/event-streams";
import { fromUtf8, toUtf8 } from "@smithy/core/serde";

/**
 * A loopback Bedrock Runtime for tests: cleartext HTTP/2 (the SDK's Bedrock client speaks only
 * HTTP/2), ConverseStream answered in the AWS event-stream framing the real service uses. Each
 * request gets the next queued reply; every request is recorded so a test can check what the
 * client sent. The SDK finds it through AWS_ENDPOINT_URL_BEDROCK_RUNTIME (converseEnv).
 */

/** One event of a ConverseStream, as its JSON payload and `:event-type`. */
export interface ConverseEvent {
  type:
    | "messageStart"
    | "contentBlockStart"
    | "contentBlockDelta"
    | "contentBlockStop"
    | "messageStop"
    | "metadata";
  body: Record<string, unknown>;
}

export type ConverseReply =
  | {
      kind: "stream";
      events: ConverseEvent[];
      /**
       * How the stream ends after its events: the response ends; it ends in the middle of an event
       * (the connection cut off); the stream is reset (RST_STREAM) at once; an exception event (`throttlingException` …) is sent; or nothing more
       * comes until the server closes.
       */
      ending: "end" | "cut" | "reset" | "hang" | { exception: string; message: string };
    }
  /** The request refused before any stream, as the service does: a status, `x-amzn-errortype`, a JSON message. */
  | { kind: "error"; status: number; type: string; message: string };

export interface ConverseRequest {
  /** The model id the URL names (`/model/{modelId}/converse-stream`). */
  modelId: string;
  /** The SigV4 Authorization header the client signed with. */
  authorization: string | undefined;
  body: {
    messages?: Array<{ role: string; content: Array<Record<string, unknown>> }>;
    system?: Array<{ text: string }>;
    toolConfig?: {
      tools: Array<{ toolSpec: { name: string; description: string; inputSchema: { json: unknown } } }>;
    };
  };
}

export interface ConverseServer {
  /** The endpoint to give AWS_ENDPOINT_URL_BEDROCK_RUNTIME. */
  readonly url: string;
  readonly requests: ConverseRequest[];
  enqueue(...replies: ConverseReply[]): void;
  close(): Promise<void>;
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const TEXT_EVENT: ConverseEvent = {
  type: "contentBlockDelta",
  body: { contentBlockIndex: 0, delta: { text: "lost" } },
};

function frame(headers: MessageHeaders, body: unknown): Uint8Array {
  return codec.encode({ headers, body: fromUtf8(JSON.stringify(body)) });
}

function eventFrame(event: ConverseEvent): Uint8Array {
  return frame(
    {
      ":event-type": { type: "string", value: event.type },
      ":content-type": { type: "string", value: "application/json" },
      ":message-type": { type: "string", value: "event" },
    },
    // The service pads each event with a `p` field so sizes do not tell the content.
    { ...event.body, p: "abcdefgh" },
  );
}

function exceptionFrame(type: string, message: string): Uint8Array {
  return frame(
    {
      ":exception-type": { type: "string", value: type },
      ":content-type": { type: "string", value: "application/json" },
      ":message-type": { type: "string", value: "exception" },
    },
    { message },
  );
}

/** Start a server on a free loopback port. */
export async function startConverseServer(): Promise<ConverseServer> {
  const queue: ConverseReply[] = [];
  const requests: ConverseRequest[] = [];
  const sessions = new Set<ServerHttp2Session>();
  const server = createServer();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  server.on("request", (req: Http2ServerRequest, res: Http2ServerResponse) => {
    void answer(req, res);
  });

  async function answer(req: Http2ServerRequest, res: Http2ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const match = /^\/model\/([^/]+)\/converse-stream$/.exec(req.url);
    if (!match || req.method !== "POST") {
      return sendError(res, {
        kind: "error",
        status: 404,
        type: "UnknownOperationException",
        message: req.url,
      });
    }
    requests.push({
      modelId: decodeURIComponent(match[1]!),
      authorization: req.headers.authorization,
      body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as ConverseRequest["body"],
    });
    const reply = queue.shift();
    if (!reply) {
      return sendError(res, {
        kind: "error",
        status: 500,
        type: "InternalServerException",
        message: "the test queued no reply",
      });
    }
    if (reply.kind === "error") return sendError(res, reply);
    res.writeHead(200, {
      "content-type": "application/vnd.amazon.eventstream",
      "x-amzn-requestid": `req-${requests.length}`,
    });
    for (const event of reply.events) res.write(eventFrame(event));
    const { ending } = reply;
    if (ending === "end") res.end();
    // Half of one more event, then the end: the client has every event before it, and a message cut off.
    else if (ending === "cut") res.end(eventFrame(TEXT_EVENT).subarray(0, 20));
    else if (ending === "reset") res.stream.close(constants.NGHTTP2_INTERNAL_ERROR);
    else if (typeof ending === "object") res.end(exceptionFrame(ending.exception, ending.message));
    // "hang": nothing more until the server closes.
  }

  function sendError(res: Http2ServerResponse, reply: Extract<ConverseReply, { kind: "error" }>) {
    res.writeHead(reply.status, {
      "content-type": "application/json",
      "x-amzn-errortype": `${reply.type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      "x-amzn-requestid": `req-${requests.length}`,
    });
    res.end(JSON.stringify({ message: reply.message }));
  }

  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    close: async () => {
      for (const session of sessions) session.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The environment that points the SDK's default chain at `server`: its endpoint, a region, fake keys. */
export function converseEnv(server: ConverseServer): Record<string, string> {
  return {
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME: server.url,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "AKIDTESTBEDROCK",
    AWS_SECRET_ACCESS_KEY: "test-secret-bedrock",
  };
}

/** Usage as the metadata event carries it. */
export interface ConverseUsage {
  inputTokens: number;
  outputTokens: number;
}

/** A text answer streamed in `parts`, ending with `stopReason` (then usage, when given). */
export function textStream(parts: string[], stopReason = "end_turn", usage?: ConverseUsage): ConverseReply {
  const events: ConverseEvent[] = [{ type: "messageStart", body: { role: "assistant" } }];
  for (const text of parts)
    events.push({ type: "contentBlockDelta", body: { contentBlockIndex: 0, delta: { text } } });
  events.push({ type: "contentBlockStop", body: { contentBlockIndex: 0 } });
  events.push(...ending(stopReason, usage));
  return { kind: "stream", events, ending: "end" };
}

/** One tool call of a toolUseStream: its input is sent as text in `pieces` (so a piece may cut JSON). */
export interface ConverseCall {
  id: string;
  name: string;
  pieces: string[];
}

/** A turn that says `text` (if any) then calls tools, each a content block of its own, ending tool_use. */
export function toolUseStream(calls: ConverseCall[], text?: string, usage?: ConverseUsage): ConverseReply {
  const events: ConverseEvent[] = [{ type: "messageStart", body: { role: "assistant" } }];
  let index = 0;
  if (text !== undefined) {
    events.push({ type: "contentBlockDelta", body: { contentBlockIndex: 0, delta: { text } } });
    events.push({ type: "contentBlockStop", body: { contentBlockIndex: 0 } });
    index = 1;
  }
  for (const call of calls) {
    const at = index++;
    events.push({
      type: "contentBlockStart",
      body: { contentBlockIndex: at, start: { toolUse: { toolUseId: call.id, name: call.name } } },
    });
    for (const input of call.pieces) {
      events.push({
        type: "contentBlockDelta",
        body: { contentBlockIndex: at, delta: { toolUse: { input } } },
      });
    }
    events.push({ type: "contentBlockStop", body: { contentBlockIndex: at } });
  }
  events.push(...ending("tool_use", usage));
  return { kind: "stream", events, ending: "end" };
}

function ending(stopReason: string, usage: ConverseUsage | undefined): ConverseEvent[] {
  const events: ConverseEvent[] = [{ type: "messageStop", body: { stopReason } }];
  if (usage) {
    events.push({
      type: "metadata",
      body: {
        usage: { ...usage, totalTokens: usage.inputTokens + usage.outputTokens },
        metrics: { latencyMs: 1 },
      },
    });
  }
  return events;
}

/** Text that streams in `parts`, then the stream is reset before the model finishes. */
export function cutStream(parts: string[]): ConverseReply {
  const { events } = textStream(parts) as Extract<ConverseReply, { kind: "stream" }>;
  return { kind: "stream", events: events.slice(0, 1 + parts.length), ending: "cut" };
}

/** The stream reset (RST_STREAM) right after its headers, before any event. */
export const resetStream = (): ConverseReply => ({ kind: "stream", events: [], ending: "reset" });

/** Text that streams in `parts`, then nothing more (until the server closes). */
export function stalledStream(parts: string[]): ConverseReply {
  const { events } = textStream(parts) as Extract<ConverseReply, { kind: "stream" }>;
  return { kind: "stream", events: events.slice(0, 1 + parts.length), ending: "hang" };
}

/** Text that streams in `parts`, then an exception event such as `throttlingException`. */
export function streamException(exception: string, message: string, parts: string[] = []): ConverseReply {
  const { events } = textStream(parts) as Extract<ConverseReply, { kind: "stream" }>;
  return { kind: "stream", events: events.slice(0, 1 + parts.length), ending: { exception, message } };
}

/** A request refused before any stream. */
export const refused = (status: number, type: string, message: string): ConverseReply => ({
  kind: "error",
  status,
  type,
  message,
});

export const throttled = () =>
  refused(429, "ThrottlingException", "Too many requests, please wait before trying again.");
export const validationError = (message = "The provided model identifier is invalid.") =>
  refused(400, "ValidationException", message);
export const accessDenied = () =>
  refused(403, "AccessDeniedException", "You don't have access to the model with the specified model ID.");
export const contextTooLong = () =>
  refused(400, "ValidationException", "Input is too long for requested model.");
export const serviceUnavailable = () =>
  refused(503, "ServiceUnavailableException", "Service is unavailable.");
