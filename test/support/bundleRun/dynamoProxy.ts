import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { callsOf } from "../iam/awsCalls.ts";
import { type AwsCallLog, readBody, signer } from "./awsCalls.ts";

type Body = Record<string, unknown>;

export async function startDynamoProxy(
  target: string,
  log: AwsCallLog,
): Promise<{ endpoint: string; server: Server }> {
  const upstream = new URL(target);
  const server = createServer((incoming, outgoing) => {
    void (async () => {
      const body = await readBody(incoming);
      const operation = String(incoming.headers["x-amz-target"] ?? "").split(".")[1] ?? "";
      const input = JSON.parse(body.toString("utf8")) as Body;
      for (const call of callsOf(signer(incoming), "DynamoDB", operation, input)) log.record(call);
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: upstream.host },
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 500, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forward.on("error", (error) => outgoing.destroy(error));
      forward.end(body);
    })().catch((error: unknown) => {
      outgoing.writeHead(500, { "content-type": "application/x-amz-json-1.0" });
      outgoing.end(JSON.stringify({ __type: "InternalServerError", message: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
