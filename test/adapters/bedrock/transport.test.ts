import { once } from "node:events";
import { createServer, type Http2Server, type ServerHttp2Session, type ServerHttp2Stream } from "node:http2";
import type { AddressInfo } from "node:net";
import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { EventStreamCodec } from "@smithy/core/event-streams";
import { fromUtf8, toUtf8 } from "@smithy/core/serde";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBedrockModel } from "../../../lib/adapters/bedrock/index.ts";
import { errorCategory, ModelRejectedError, ModelUnavailableError } from "../../../lib/core/errors.ts";
import type { ModelRequest } from "../../../lib/ports/model.ts";
import { rejectionOf } from "../../support/thrown.ts";

/**
 * What reaches the client on the wire when it is not the event stream it should be: a frame that
 * fails its checksum (a corrupted transport), or an answer that is no event stream at all (a proxy
 * or a wrong endpoint answering 200). test/support/converseServer.ts only ever sends sound frames.
 */

type Answer = (stream: ServerHttp2Stream) => void;

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** One ConverseStream event in the AWS event-stream framing, as the service sends it. */
function event(type: string, body: Record<string, unknown>): Uint8Array {
  return codec.encode({
    headers: {
      ":event-type": { type: "string", value: type },
      ":content-type": { type: "string", value: "application/json" },
      ":message-type": { type: "string", value: "event" },
    },
    body: fromUtf8(JSON.stringify(body)),
  });
}

/** The frame with one bit of its message checksum (its last four bytes) flipped. */
function corrupted(frame: Uint8Array): Uint8Array {
  const copy = frame.slice();
  copy[copy.length - 1]! ^= 0x01;
  return copy;
}

const messageStart = () => event("messageStart", { role: "assistant" });
const text = (words: string) => event("contentBlockDelta", { contentBlockIndex: 0, delta: { text: words } });

/** A 200 event stream of these frames. */
const frames =
  (...sent: Uint8Array[]): Answer =>
  (stream) => {
    stream.respond({ ":status": 200, "content-type": "application/vnd.amazon.eventstream" });
    for (const frame of sent) stream.write(frame);
    stream.end();
  };

let server: Http2Server;
let url: string;
let answers: Answer[];
let requests: number;
const sessions = new Set<ServerHttp2Session>();
let client: BedrockRuntimeClient;

beforeEach(async () => {
  answers = [];
  requests = 0;
  server = createServer();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  server.on("stream", async (stream) => {
    stream.on("error", () => {}); // a client that gives up on a bad frame may reset the stream
    for await (const _ of stream); // the body, unread
    requests += 1;
    answers.shift()?.(stream);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new BedrockRuntimeClient({
    endpoint: url,
    region: "us-east-1",
    credentials: { accessKeyId: "AKIDTRANSPORT", secretAccessKey: "transport-secret" },
    // The SDK's own retries as in production: none of these answers is one it tries again.
    maxAttempts: 3,
  });
});
afterEach(async () => {
  client.destroy();
  for (const session of sessions) session.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const SPEC = "bedrock:anthropic.claude-transport-v1:0";
const request: ModelRequest = {
  runId: "run-1",
  turn: 0,
  instructions: "",
  messages: [{ role: "user", content: "Hi" }],
  tools: [],
};

function call(...queued: Answer[]) {
  answers.push(...queued);
  return createBedrockModel({ modelId: "anthropic.claude-transport-v1:0", client }).call(request);
}

describe("Bedrock model: a corrupted event stream", () => {
  it.each([
    ["the first frame", [corrupted(text("Hello"))]],
    ["the frame after messageStart", [messageStart(), corrupted(text("Hello"))]],
  ])(
    "a bad checksum in %s, before any text, is retryable like any stream broken before text",
    async (_where, sent) => {
      const error = await rejectionOf(call(frames(...sent)));
      expect(error).toBeInstanceOf(ModelUnavailableError);
      expect(errorCategory(error)).toBe("RetryableError");
      expect(error.message).toMatch(
        /^bedrock:anthropic\.claude-transport-v1:0 is unavailable: the response stream broke before any text: The message checksum \(\d+\) did not match the expected value of \d+/,
      );
      expect(requests).toBe(1);
    },
  );

  it("a bad checksum after some text keeps the text as interrupted", async () => {
    const reply = await call(frames(messageStart(), text("Hello"), corrupted(text(" there"))));
    expect(reply).toEqual({ text: "Hello", toolCalls: [], stop: "interrupted" });
  });
});

describe("Bedrock model: an endpoint that answers with no event stream", () => {
  it.each([
    ["text/html; charset=utf-8", "<html><body>Sign in to continue</body></html>"],
    ["application/json", JSON.stringify({ output: { message: { role: "assistant", content: [] } } })],
  ])("a 200 with content-type %s is refused, naming what it answered", async (contentType, body) => {
    const error = await rejectionOf(
      call((stream) => {
        stream.respond({ ":status": 200, "content-type": contentType });
        stream.end(body);
      }),
    );
    expect(error).toBeInstanceOf(ModelRejectedError);
    expect(error.message.startsWith(`${SPEC} cannot be used: `)).toBe(true);
    expect(error.message).toContain(
      `the endpoint answered with content-type ${contentType}, not an event stream (application/vnd.amazon.eventstream): ConverseStream must stream`,
    );
    expect(requests).toBe(1);
  });
});
