import { createSocket, type Socket } from "node:dgram";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { DynamoDBClient, GetItemCommand } from "@aws-sdk/client-dynamodb";
import { SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { observed } from "../../functions/observability/invocation.ts";
import { handler as startRun } from "../../functions/startRun.ts";
import { made } from "../../lib/runtime/aws/clientObservers.ts";
import { NAMES } from "../../lib/runtime/config.ts";
import { outputOf } from "./stdout.ts";
import { busEvent, STATE_MACHINE_ARN, useFunctionEnvironment } from "./support.ts";

/**
 * The traces a function sends the X-Ray daemon (lib/runtime/aws/xray.ts), read by a UDP server
 * standing where Lambda's daemon listens: the step's subsegment, one per AWS call under it, and the
 * trace header each request carries.
 */
useFunctionEnvironment("fn-traced", { STATE_MACHINE_ARN });
const sfn = mockClient(SFNClient);

type Document = Record<string, unknown> & { id: string; name: string; parent_id: string; trace_id: string };
const FACADE = "53995c3f42cd8ad8";
const LINEAGE = ";Lineage=a87bd80c:0";
let daemon: Socket;
const received: Document[] = [];

beforeAll(async () => {
  daemon = createSocket("udp4");
  daemon.on("message", (packet) => {
    const [header, body] = packet.toString().split("\n");
    expect(JSON.parse(header!)).toEqual({ format: "json", version: 1 });
    received.push(JSON.parse(body!) as Document);
  });
  await new Promise<void>((resolve) => daemon.bind(0, "127.0.0.1", resolve));
  sfn.on(StartExecutionCommand).resolves({ executionArn: "arn", startDate: new Date() });
});
afterAll(() => daemon.close());
afterEach(() => {
  delete process.env._X_AMZN_TRACE_ID;
  delete process.env.AWS_XRAY_DAEMON_ADDRESS;
  delete process.env.AWS_LAMBDA_FUNCTION_NAME;
  received.length = 0;
});

let traces = 0;

/**
 * Trace what runs next as Lambda does with active tracing: the header of an invocation (a trace of
 * its own, so what an earlier test sent late is not read as this one's, with the `Lineage` Lambda
 * adds), the daemon's address and the function's name.
 */
function traced(sampled: boolean): string {
  const root = `1-5759e988-${String(++traces).padStart(24, "0")}`;
  process.env._X_AMZN_TRACE_ID = `Root=${root};Parent=${FACADE};Sampled=${sampled ? 1 : 0}${LINEAGE}`;
  process.env.AWS_XRAY_DAEMON_ADDRESS = `127.0.0.1:${(daemon.address() as AddressInfo).port}`;
  process.env.AWS_LAMBDA_FUNCTION_NAME = "fn-traced";
  return root;
}

/** The documents of trace `root` the daemon has once one named `last` has arrived (a subsegment is sent when it closes). */
async function documents(root: string, last: string): Promise<Document[]> {
  const ofTrace = () => received.filter((document) => document.trace_id === root);
  // Generous for a loaded machine: it returns as soon as the document is there.
  await vi.waitFor(() => expect(ofTrace().map((document) => document.name)).toContain(last), {
    timeout: 10_000,
  });
  return ofTrace();
}

/**
 * A DynamoDB client of the functions' kind whose every request is answered with `reply`; `traceHeaders`
 * holds the trace header each request carried (undefined for none).
 */
function answering(reply: { statusCode: number; body: object } = { statusCode: 200, body: {} }) {
  const traceHeaders: (string | undefined)[] = [];
  const handle = async (request: { headers: Record<string, string> }) => {
    const name = Object.keys(request.headers).find((header) => header.toLowerCase() === "x-amzn-trace-id");
    traceHeaders.push(name === undefined ? undefined : request.headers[name]);
    const response = {
      statusCode: reply.statusCode,
      headers: { "content-type": "application/x-amz-json-1.0", "x-amzn-requestid": "REQ-1" },
      body: Readable.from([Buffer.from(JSON.stringify(reply.body))]),
    };
    return { response };
  };
  const client = made(
    new DynamoDBClient({
      region: "eu-west-1",
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
      maxAttempts: 1,
      requestHandler: { handle } as never,
    }),
  );
  return { client, traceHeaders };
}

describe("a traced invocation", () => {
  it("sends the step's subsegment, annotated with the run, and one for each DynamoDB call under it", async () => {
    const root = traced(true);
    const event = busEvent("runlog.StartRun", { agent: "demo", input: "hi", runId: "traced-1" });
    const { value } = await outputOf(() => startRun(event));
    expect(value).toMatchObject({ runId: "traced-1", created: true });

    const sent = await documents(root, "## startRun");
    const step = sent.find((document) => document.name === "## startRun")!;
    expect(step).toMatchObject({
      type: "subsegment",
      parent_id: FACADE,
      annotations: { step: "startRun", runId: "traced-1" },
    });
    expect(step.end_time).toBeGreaterThanOrEqual(step.start_time as number);
    const calls = sent.filter((document) => document.name === "DynamoDB");
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call).toMatchObject({
        type: "subsegment",
        namespace: "aws",
        parent_id: step.id,
        aws: { region: "us-east-1", table_name: process.env[NAMES.tableName] },
        http: { response: { status: 200 } },
      });
      expect((call.aws as { request_id: string }).request_id).toMatch(/\S/);
    }
    expect(calls.map((call) => (call.aws as { operation: string }).operation)).toContain("PutItem");
    expect(new Set(sent.map((document) => document.id)).size).toBe(sent.length);
  });

  it("flags a call DynamoDB refuses as an error with its exception, and a failed step as a fault", async () => {
    const root = traced(true);
    const client = made(new DynamoDBClient({ region: "us-east-1" }));
    const failed = outputOf(() =>
      observed("probe", undefined, async ({ identify }) => {
        identify({ runId: "traced-2", generation: 3 });
        await client.send(new GetItemCommand({ TableName: "no-such-table", Key: { pk: { S: "x" } } }));
      }),
    );
    await expect(failed).rejects.toThrow(/non-existent table|not found/i);

    const sent = await documents(root, "## probe");
    const call = sent.find((document) => document.name === "DynamoDB")!;
    expect(call).toMatchObject({
      error: true,
      aws: { operation: "GetItem", table_name: "no-such-table" },
      http: { response: { status: 400 } },
      cause: { exceptions: [{ type: "ResourceNotFoundException" }] },
    });
    expect(call.fault).toBeUndefined();
    const step = sent.find((document) => document.name === "## probe")!;
    expect(step).toMatchObject({
      fault: true,
      annotations: { step: "probe", runId: "traced-2", generation: 3 },
    });
    expect(call.parent_id).toBe(step.id);
  });

  it("keeps a failed step's message redacted and short enough for one datagram", async () => {
    const root = traced(true);
    const key = `sk-proj-${"a".repeat(40)}`;
    const failing = outputOf(() =>
      observed("leaky", undefined, async () => {
        throw new Error(`Incorrect API key provided: ${key}; ${"x".repeat(100_000)}`);
      }),
    );
    await expect(failing).rejects.toThrow("Incorrect API key");

    const [step] = await documents(root, "## leaky");
    const [exception] = (step!.cause as { exceptions: { type: string; message: string }[] }).exceptions;
    expect(exception).toMatchObject({
      type: "Error",
      message: expect.stringContaining("[redacted:openai-key]"),
    });
    expect(exception!.message).not.toContain(key);
    expect(exception!.message.length).toBeLessThanOrEqual(2_000);
  });

  it("passes the trace on in each request's header, naming the call's subsegment as its parent", async () => {
    const root = traced(true);
    const { client, traceHeaders } = answering();
    await outputOf(() => observed("probe", undefined, () => client.send(getItem())));

    const [call] = (await documents(root, "## probe")).filter((document) => document.name === "DynamoDB");
    // Lineage kept: Lambda counts it to stop a function that invokes itself in a loop.
    expect(traceHeaders).toEqual([`Root=${root};Parent=${call!.id};Sampled=1${LINEAGE}`]);
    expect(call).toMatchObject({ aws: { region: "eu-west-1", request_id: "REQ-1" } });
  });

  it("flags a throttled call as throttled", async () => {
    const root = traced(true);
    const throttling = {
      __type: "com.amazonaws.dynamodb.v20120810#ThrottlingException",
      message: "Rate exceeded",
    };
    const { client } = answering({ statusCode: 400, body: throttling });
    await expect(client.send(getItem())).rejects.toThrow("Rate exceeded");

    const [call] = await documents(root, "DynamoDB");
    // Outside a step the call's parent is the invocation's own segment.
    expect(call).toMatchObject({ parent_id: FACADE, throttle: true, error: true });
  });
});

describe("an invocation not traced", () => {
  it("sends nothing when not sampled, and passes the invocation's header on as it came", async () => {
    const quiet = traced(false);
    const { client, traceHeaders } = answering();
    await outputOf(() => observed("quiet", undefined, () => client.send(getItem())));
    expect(traceHeaders).toEqual([`Root=${quiet};Parent=${FACADE};Sampled=0${LINEAGE}`]);

    // Once a sampled invocation's document has arrived, anything the unsampled one sent before it would have.
    const loud = traced(true);
    await outputOf(() => observed("loud", undefined, async () => {}));
    await documents(loud, "## loud");
    expect(received.filter((document) => document.trace_id === quiet)).toEqual([]);
  });

  it("adds no header and sends nothing outside Lambda (no trace header)", async () => {
    const { client, traceHeaders } = answering();
    await outputOf(() => observed("local", undefined, () => client.send(getItem())));
    expect(traceHeaders).toEqual([undefined]);

    // Once a traced invocation's document has arrived, any the untraced one sent before it would have.
    const loud = traced(true);
    await outputOf(() => observed("loud", undefined, async () => {}));
    await documents(loud, "## loud");
    expect(received.map((document) => document.name)).not.toContain("## local");
  });
});

const getItem = () => new GetItemCommand({ TableName: "runs", Key: { pk: { S: "x" } } });
