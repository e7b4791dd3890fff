import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  InternalServerError,
  ProvisionedThroughputExceededException,
  PutItemCommand,
  QueryCommand,
  RequestLimitExceeded,
  ResourceNotFoundException,
  ThrottlingException,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { DynamoEventStore } from "../../../lib/adapters/dynamodb/dynamoEventStore.ts";
import {
  ConflictError,
  errorCategory,
  PermanentError,
  RetryableError,
  RunlogError,
} from "../../../lib/core/errors.ts";
import type { RunStarted } from "../../../lib/core/events.ts";
import { stamp } from "../../../lib/core/storedEvents.ts";

const ddb = mockClient(DynamoDBClient);
const client = new DynamoDBClient({
  region: "local",
  credentials: { accessKeyId: "x", secretAccessKey: "x" },
});
const store = new DynamoEventStore({ client, tableName: "runs-table" });
const $metadata = {};
const first = stamp(
  { type: "run_started", runId: "r1", agent: "demo", model: "scripted:demo", input: "hi" },
  1,
  new Date(),
) as RunStarted;
const event = stamp({ type: "user_message", text: "x" }, 2, new Date());

const network = (code: string, message: string) => Object.assign(new Error(message), { code });
const serverFault = () =>
  Object.assign(new Error("Service Unavailable"), {
    name: "ServiceUnavailable",
    $fault: "server",
    $metadata,
  });

beforeEach(() => ddb.reset());
afterAll(() => ddb.restore());

describe("SDK errors become runlog errors", () => {
  it.each([
    [
      "provisioned throughput",
      () => new ProvisionedThroughputExceededException({ message: "slow down", $metadata }),
    ],
    ["throttling", () => new ThrottlingException({ message: "slow down", $metadata })],
    ["request limit", () => new RequestLimitExceeded({ message: "too many", $metadata })],
    ["a 500", () => new InternalServerError({ message: "oops", $metadata })],
    ["a 503", serverFault],
    ["a refused connection", () => network("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:1")],
    ["a reset connection", () => network("ECONNRESET", "socket hang up")],
    ["a timeout", () => Object.assign(new Error("timed out"), { name: "TimeoutError" })],
  ])("%s is retryable, keeps its cause and names the run", async (_, make) => {
    const cause = make();
    ddb.on(QueryCommand).rejects(cause);
    const error = await store.read("r1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetryableError);
    expect(errorCategory(error)).toBe("RetryableError");
    expect((error as Error).cause).toBe(cause);
    expect((error as Error).message).toContain("run r1");
  });

  it("a failed condition on append is a conflict naming the run and seq", async () => {
    ddb.on(PutItemCommand).rejects(new ConditionalCheckFailedException({ message: "failed", $metadata }));
    const error = await store.append("r1", event).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as Error).message).toMatch(/run r1.*seq 2/);
  });

  it("a missing table is permanent and names the table", async () => {
    ddb.on(GetItemCommand).rejects(new ResourceNotFoundException({ message: "not found", $metadata }));
    ddb.on(QueryCommand).resolves({ Items: [] });
    const error = await store.getHead("r1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermanentError);
    expect((error as Error).message).toContain("runs-table");
  });

  it("a validation error is permanent", async () => {
    const cause = Object.assign(new Error("Item size has exceeded the maximum allowed size"), {
      name: "ValidationException",
      $fault: "client",
    });
    ddb.on(PutItemCommand).rejects(cause);
    const error = await store.append("r1", event).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermanentError);
    expect((error as Error).message).toContain("maximum allowed size");
  });

  it("an append is one conditional put: it never touches the head", async () => {
    ddb.on(PutItemCommand).resolves({});
    ddb.on(UpdateItemCommand).rejects(new InternalServerError({ message: "oops", $metadata }));
    await store.append("r1", event);
    expect(ddb.commandCalls(PutItemCommand)).toHaveLength(1);
    expect(ddb.commandCalls(UpdateItemCommand)).toHaveLength(0);
  });

  const calls: [string, () => Promise<unknown>][] = [
    ["createRun", () => store.createRun(first, { owner: "o", until: 1 })],
    ["append", () => store.append("r1", event)],
    ["read", () => store.read("r1")],
    ["readBack", () => store.readBack("r1", () => true)],
    ["getHead", () => store.getHead("r1")],
    ["setStatus", () => store.setStatus("r1", "completed", 2)],
    ["claimLease", () => store.claimLease("r1", { owner: "o", until: 1 }, 0)],
    ["renewLease", () => store.renewLease("r1", { owner: "o", until: 1 })],
    ["releaseLease", () => store.releaseLease("r1", "o", { status: "completed" })],
    ["listRuns", () => store.listRuns({ status: "running" })],
    ["listRuns without status", () => store.listRuns()],
  ];

  it.each(calls)("no raw SDK error escapes %s", async (_, call) => {
    ddb
      .onAnyCommand()
      .rejects(Object.assign(new Error("something odd"), { name: "UnknownOperationException" }));
    const error = await call().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunlogError);
    expect((error as Error).message).toContain("something odd");
  });
});
