import { request } from "node:http";

/** One plain HTTP exchange with a local port; no SDK, so the server and liveness checks start fast. */
function exchange(
  port: number,
  options: { method: string; headers?: Record<string, string>; body?: string },
  timeoutMs: number,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/",
        method: options.method,
        headers: options.headers ?? {},
        agent: false,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        res.on("error", reject);
      },
    );
    req.setTimeout(timeoutMs, () =>
      req.destroy(new Error(`no answer from 127.0.0.1:${port} in ${timeoutMs} ms`)),
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Whether the port answers dynalite's health check (GET / says "healthy"). */
export async function answers(port: number, timeoutMs = 2_000): Promise<boolean> {
  try {
    const { status, body } = await exchange(port, { method: "GET" }, timeoutMs);
    return status === 200 && body.startsWith("healthy");
  } catch {
    return false;
  }
}

/** A ListTables call, which reads LevelDB: proof that this server really holds the database. */
export async function listTables(port: number, timeoutMs = 10_000): Promise<void> {
  const headers = {
    "content-type": "application/x-amz-json-1.0",
    "x-amz-target": "DynamoDB_20120810.ListTables",
    "x-amz-date": "20200101T000000Z",
    // dynalite checks the shape of the signature, not its value.
    authorization:
      "AWS4-HMAC-SHA256 Credential=local/20200101/local/dynamodb/aws4_request, SignedHeaders=host, Signature=0",
  };
  const { status, body } = await exchange(port, { method: "POST", headers, body: "{}" }, timeoutMs);
  if (status !== 200) throw new Error(`ListTables answered ${status}: ${body}`);
}
