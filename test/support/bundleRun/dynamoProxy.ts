import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type AwsCall, type AwsCallLog, readBody, signer } from "./awsCalls.ts";
import { ACCOUNT, REGION } from "./template.ts";

type Body = Record<string, unknown>;
const tableArn = (table: string) => `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${table}`;

/** The item operations a transaction's entries are authorized as (IAM has no TransactWriteItems action). */
const TRANSACT_ACTIONS: Record<string, string> = {
  Put: "dynamodb:PutItem",
  Update: "dynamodb:UpdateItem",
  Delete: "dynamodb:DeleteItem",
  ConditionCheck: "dynamodb:ConditionCheckItem",
  Get: "dynamodb:GetItem",
};

/** What IAM authorizes a DynamoDB request as: one (action, resource) per table or index it touches. */
export function dynamoCalls(fn: string, operation: string, body: Body): AwsCall[] {
  if (operation === "TransactWriteItems" || operation === "TransactGetItems") {
    return (body.TransactItems as Record<string, { TableName: string }>[]).flatMap((item) =>
      Object.entries(item).map(([kind, entry]) => ({
        fn,
        action: TRANSACT_ACTIONS[kind] ?? `dynamodb:${kind}`,
        resource: tableArn(entry.TableName),
      })),
    );
  }
  if (operation === "BatchGetItem" || operation === "BatchWriteItem") {
    return Object.keys(body.RequestItems as Body).map((table) => ({
      fn,
      action: `dynamodb:${operation}`,
      resource: tableArn(table),
    }));
  }
  const table = tableArn(String(body.TableName));
  const resource = typeof body.IndexName === "string" ? `${table}/index/${body.IndexName}` : table;
  return [{ fn, action: `dynamodb:${operation}`, resource }];
}

/**
 * A recording proxy in front of dynalite: each function's DynamoDB requests pass through here
 * (AWS_ENDPOINT_URL_DYNAMODB), are recorded as IAM would see them, and go on unchanged.
 */
export async function startDynamoProxy(
  target: string,
  log: AwsCallLog,
): Promise<{ endpoint: string; server: Server }> {
  const upstream = new URL(target);
  const server = createServer((incoming, outgoing) => {
    void (async () => {
      const body = await readBody(incoming);
      const operation = String(incoming.headers["x-amz-target"] ?? "").split(".")[1] ?? "";
      for (const call of dynamoCalls(
        signer(incoming),
        operation,
        JSON.parse(body.toString("utf8")) as Body,
      )) {
        log.record(call);
      }
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
