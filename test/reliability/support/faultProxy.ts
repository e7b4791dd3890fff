import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * What the proxy does to one request. `throttle` and `server-error` answer
 * without forwarding; `late` holds the request past the client's timeout and
 * then forwards it anyway; `lost-answer`, `dropped-answer` and `slow-answer`
 * forward it (so a write lands) and then lose the answer: replaced by a 500,
 * a dropped connection, or held past the client's timeout.
 */
export type Fault = "throttle" | "server-error" | "late" | "lost-answer" | "dropped-answer" | "slow-answer";
export const FAULTS: readonly Fault[] = [
  "throttle",
  "server-error",
  "late",
  "lost-answer",
  "dropped-answer",
  "slow-answer",
];

/** One request as the proxy sees it: the DynamoDB operation and its JSON body. */
export interface ProxiedRequest {
  operation: string;
  body: string;
}

export interface FaultProxy {
  url: string;
  /** Requests seen, and faults injected by kind. */
  readonly seen: { requests: number } & Partial<Record<Fault, number>>;
  /** Decides each request's fault (undefined: pass it through). */
  choose: (request: ProxiedRequest) => Fault | undefined;
  close(): Promise<void>;
}

const ERRORS = {
  throttle: [400, "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException"],
  "server-error": [500, "com.amazon.coral.service#InternalFailure"],
} as const;

function answer(res: ServerResponse, [status, type]: readonly [number, string]): void {
  res.writeHead(status, { "content-type": "application/x-amz-json-1.0" });
  res.end(JSON.stringify({ __type: type, message: "injected by the test's fault proxy" }));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readAll(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Send the request on to the real server; resolves with its whole answer. */
function forward(upstream: URL, req: IncomingMessage, body: Buffer) {
  const { host: _, connection: __, ...headers } = req.headers;
  return new Promise<{ status: number; headers: IncomingMessage["headers"]; body: Buffer }>(
    (resolve, reject) => {
      const out = request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers },
        (res) => {
          readAll(res).then(
            (data) => resolve({ status: res.statusCode ?? 500, headers: res.headers, body: data }),
            reject,
          );
        },
      );
      out.on("error", reject);
      out.end(body);
    },
  );
}

/**
 * A loopback HTTP proxy in front of a DynamoDB-compatible endpoint that injects
 * the fault `choose` picks for each request. `holdMs` must exceed the client's
 * request timeout for `late` and `slow-answer` to time out.
 */
export async function startFaultProxy(upstream: string, holdMs: number): Promise<FaultProxy> {
  const target = new URL(upstream);
  const proxy: FaultProxy = {
    url: "",
    seen: { requests: 0 },
    choose: () => undefined,
    close: async () => {},
  };
  const server = createServer(async (req, res) => {
    try {
      const body = await readAll(req);
      const operation =
        String(req.headers["x-amz-target"] ?? "")
          .split(".")
          .pop() ?? "";
      const fault = proxy.choose({ operation, body: body.toString("utf8") });
      proxy.seen.requests++;
      if (fault) proxy.seen[fault] = (proxy.seen[fault] ?? 0) + 1;
      if (fault === "throttle" || fault === "server-error") return answer(res, ERRORS[fault]);
      if (fault === "late") await sleep(holdMs);
      const reply = await forward(target, req, body);
      if (fault === "lost-answer") return answer(res, ERRORS["server-error"]);
      if (fault === "dropped-answer") return void req.socket.destroy();
      if (fault === "slow-answer") await sleep(holdMs);
      if (res.destroyed) return;
      res.writeHead(reply.status, reply.headers);
      res.end(reply.body);
    } catch {
      req.socket.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
