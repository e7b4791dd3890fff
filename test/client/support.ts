import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import type { EventSourceMessage } from "eventsource-parser";
import { EventSourceParserStream } from "eventsource-parser/stream";
import { type LocalRunlog, openLocal } from "../../lib/api/local.ts";
import { createApp } from "../../lib/http/app.ts";
import { cleanup, tempDataDir, testEnv } from "../support/cli.ts";

/** What stands in front of the app: a test's hand on each request (answer it, change the answer). */
export type Front = (request: Request, app: (request: Request) => Promise<Response>) => Promise<Response>;

/** `runlog serve`'s app as it serves it (background runs, the live feed, its token), on a real port of 127.0.0.1. */
export interface ServedApp {
  url: string;
  token: string;
  dir: string;
  local: LocalRunlog;
  /** Every request the server got: method, path and headers (what a test asserts the client sent). */
  requests: { method: string; path: string; headers: Headers }[];
  /** Put a test's hand in front of the app (until the next call); none: the app answers. */
  front(front: Front | undefined): void;
  close(): Promise<void>;
}

const TOKEN = "client-test-token";

/** Serve the app; `live: false` serves it as the Lambda does, without a live feed (GET /runs/{id}/live is a 404). */
export async function serveApp(label: string, { live = true } = {}): Promise<ServedApp> {
  const dir = tempDataDir(label);
  const local = await openLocal({ dataDir: dir, background: true, env: testEnv() });
  const app = createApp(local.runlog, {
    allowScriptFiles: true,
    localToken: TOKEN,
    ...(live ? { live: local.live } : {}),
  });
  const requests: ServedApp["requests"] = [];
  let front: Front | undefined;
  const toApp = async (request: Request) => app.fetch(request);
  const server = createAdaptorServer({
    fetch: (request: Request) => {
      requests.push({
        method: request.method,
        path: new URL(request.url).pathname,
        headers: request.headers,
      });
      return front ? front(request, toApp) : toApp(request);
    },
    hostname: "127.0.0.1",
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token: TOKEN,
    dir,
    local,
    requests,
    front: (next) => {
      front = next;
    },
    close: async () => {
      local.live.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ("closeAllConnections" in server) server.closeAllConnections();
      });
      await local.close();
      await cleanup(dir);
    },
  };
}

/** An error answer as the API writes it. */
export const errorAnswer = (status: number, code: string, headers: Record<string, string> = {}) =>
  Response.json({ error: { code, message: `${code} (from the test)` } }, { status, headers });

/**
 * The response with its event stream ended by the server after `count` `appended` events: what a
 * client sees when a server (or a proxy between) closes a live stream mid-run. The stream is read
 * as a client parses it (any line ending) and each event passed on whole, as the server wrote it.
 */
export function cutAfter(response: Response, count: number): Response {
  if (!response.body) return response;
  const reader = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  const encoder = new TextEncoder();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(serialized(value)));
      if (value.event === "appended" && ++sent === count) {
        await reader.cancel();
        controller.close();
      }
    },
    cancel: () => reader.cancel(),
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

/** One parsed event written back as `text/event-stream`. */
function serialized(event: EventSourceMessage): string {
  const fields = [
    ...(event.event === undefined ? [] : [`event: ${event.event}`]),
    ...(event.id === undefined ? [] : [`id: ${event.id}`]),
    ...event.data.split("\n").map((line) => `data: ${line}`),
  ];
  return `${fields.join("\n")}\n\n`;
}
