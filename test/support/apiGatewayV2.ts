import { createServer, type IncomingMessage, type RequestListener } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { type Verdict, verifySigV4 } from "./sigv4Verifier.ts";

/** A key API Gateway's IAM authorizer knows: its secret, and the principal a request signed with it is. */
export interface IamCaller {
  secretAccessKey: string;
  userArn: string;
}

/** What API Gateway hands a Lambda proxy integration's answer back as (payload format 2.0). */
interface ProxyResult {
  statusCode: number;
  headers?: Record<string, string>;
  cookies?: string[];
  body?: string;
  isBase64Encoded?: boolean;
}

/** A Lambda handler as API Gateway invokes it. */
export type ProxyHandler = (event: unknown, context: unknown) => Promise<ProxyResult>;

export interface LocalApiGateway {
  url: string;
  /** The authorizer's verdict on every request, in order. */
  verdicts: Verdict[];
  close(): Promise<void>;
}

const ACCOUNT = "123456789012";

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** An HTTP API (payload 2.0) event for this request, as API Gateway builds it once IAM auth let it through. */
function v2Event(request: IncomingMessage, url: URL, body: Buffer, accessKey: string, userArn: string) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && name !== "cookie") headers[name] = [value].flat().join(",");
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams)
    query[name] = name in query ? `${query[name]},${value}` : value;
  const cookies = request.headers.cookie?.split(/;\s*/).filter((cookie) => cookie !== "");
  const text = body.toString("utf8");
  const binary = !Buffer.from(text, "utf8").equals(body);
  const now = new Date();
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(cookies?.length ? { cookies } : {}),
    headers,
    ...(url.search === "" ? {} : { queryStringParameters: query }),
    ...(body.length === 0 ? {} : { body: binary ? body.toString("base64") : text }),
    isBase64Encoded: binary,
    requestContext: {
      accountId: ACCOUNT,
      apiId: "local",
      authorizer: {
        iam: {
          accessKey,
          accountId: ACCOUNT,
          callerId: accessKey,
          cognitoIdentity: null,
          principalOrgId: null,
          userArn,
          userId: accessKey,
        },
      },
      domainName: url.host,
      domainPrefix: "local",
      http: {
        method: request.method ?? "GET",
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? "127.0.0.1",
        userAgent: request.headers["user-agent"] ?? "",
      },
      requestId: crypto.randomUUID(),
      routeKey: "$default",
      stage: "$default",
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
  };
}

/**
 * API Gateway's HTTP API in front of a Lambda handler, on a port of 127.0.0.1: the IAM authorizer
 * (every request's SigV4 signature checked against the keys it knows; a refusal is API Gateway's
 * 403 with its `message`), then the request as a payload 2.0 event carrying the signer's ARN, and
 * the handler's result back as the HTTP answer. What the deployed API does, without AWS.
 */
export async function serveApiGateway(
  handler: ProxyHandler,
  callers: Record<string, IamCaller>,
  scope: { region: string; service: string } = { region: "eu-west-1", service: "execute-api" },
  /** Serve https with this key and certificate (as API Gateway does), not http. */
  tls?: { key: string; cert: string },
): Promise<LocalApiGateway> {
  const verdicts: Verdict[] = [];
  const secrets = Object.fromEntries(
    Object.entries(callers).map(([key, { secretAccessKey }]) => [key, secretAccessKey]),
  );
  const listener: RequestListener = async (request, response) => {
    try {
      const body = await bodyOf(request);
      const url = new URL(request.url ?? "/", `http://${request.headers.host ?? "127.0.0.1"}`);
      const asFetch = new Request(url, {
        method: request.method ?? "GET",
        headers: Object.entries(request.headers).flatMap(([name, value]) =>
          value === undefined ? [] : [[name, [value].flat().join(",")] as [string, string]],
        ),
      });
      const verdict = await verifySigV4(asFetch, body.toString("utf8"), secrets, scope);
      verdicts.push(verdict);
      if ("refused" in verdict) {
        response
          .writeHead(403, { "content-type": "application/json" })
          .end(JSON.stringify({ message: verdict.refused }));
        return;
      }
      const caller = callers[verdict.accessKeyId]!;
      const event = v2Event(request, url, body, verdict.accessKeyId, caller.userArn);
      const result = await handler(event, { awsRequestId: event.requestContext.requestId });
      for (const cookie of result.cookies ?? []) response.appendHeader("set-cookie", cookie);
      response.writeHead(result.statusCode, result.headers ?? {});
      response.end(
        result.body === undefined
          ? undefined
          : Buffer.from(result.body, result.isBase64Encoded ? "base64" : "utf8"),
      );
    } catch (error) {
      // What API Gateway answers when the integration fails.
      process.stderr.write(`local API Gateway: ${String(error)}\n`);
      response
        .writeHead(500, { "content-type": "application/json" })
        .end('{"message":"Internal Server Error"}');
    }
  };
  const server = tls === undefined ? createServer(listener) : createTlsServer(tls, listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls === undefined ? "http" : "https"}://127.0.0.1:${port}`,
    verdicts,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
