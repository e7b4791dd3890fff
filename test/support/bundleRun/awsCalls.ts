import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { AwsCall as IamCall } from "../iam/awsCalls.ts";

/**
 * One AWS API call a bundle made: `fn` is the handler name its process signs with as access key
 * id (see signer), checked against the roles once the test knows it names a handler.
 */
export type AwsCall = IamCall<string>;

/** Every AWS call of a test, in the order the fake endpoints answered them. */
export class AwsCallLog {
  readonly calls: AwsCall[] = [];

  record(call: AwsCall): void {
    this.calls.push(call);
  }
}

/** The access key id in a SigV4 Authorization header: each function's process signs with its handler name. */
export function signer(request: IncomingMessage): string {
  const header = request.headers.authorization ?? "";
  const match = /Credential=([^/]+)\//.exec(header);
  if (!match) throw new Error(`unsigned request to ${request.headers["x-amz-target"] ?? request.url}`);
  return match[1]!;
}

/** An AWS JSON-protocol error, as the SDK reads it (`__type`, then `message`). */
export class AwsFault extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = type;
  }
}

export function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

type Operation = (body: Record<string, unknown>, fn: string) => Promise<unknown> | unknown;

/**
 * A fake AWS service speaking the JSON protocol (`X-Amz-Target: <prefix>.<Operation>`) on a
 * loopback port: each operation answers a JSON body or throws AwsFault. An operation it does
 * not know is a 400 naming it, so a function calling something new fails the test loudly.
 */
export async function jsonService(
  prefix: string,
  operations: Record<string, Operation>,
): Promise<{ endpoint: string; server: Server }> {
  const server = createServer((request, response) => {
    void answer(request, response, prefix, operations);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function answer(
  request: IncomingMessage,
  response: ServerResponse,
  prefix: string,
  operations: Record<string, Operation>,
): Promise<void> {
  const contentType = request.headers["content-type"] ?? "application/x-amz-json-1.0";
  let status = 200;
  let out: unknown;
  try {
    const target = String(request.headers["x-amz-target"] ?? "");
    const operation = target.startsWith(`${prefix}.`)
      ? operations[target.slice(prefix.length + 1)]
      : undefined;
    if (!operation) throw new AwsFault("UnknownOperationException", `${target} is not served here`);
    const text = (await readBody(request)).toString("utf8");
    out = await operation(text ? (JSON.parse(text) as Record<string, unknown>) : {}, signer(request));
  } catch (error) {
    const fault =
      error instanceof AwsFault
        ? error
        : new AwsFault("InternalServerError", error instanceof Error ? error.message : String(error), 500);
    status = fault.status;
    out = { __type: fault.type, message: fault.message };
  }
  response.writeHead(status, { "content-type": contentType });
  response.end(JSON.stringify(out ?? {}));
}

export function stopServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
