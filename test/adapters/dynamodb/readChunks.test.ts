import { BatchGetItemCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { blobPartition, readChunks } from "../../../lib/adapters/dynamodb/blobs.ts";
import { RetryableError } from "../../../lib/core/errors.ts";

/**
 * What no local server shows: DynamoDB leaving keys of a BatchGetItem unprocessed (throttling),
 * for a while or for good. The read must ask again for exactly those keys, and fail as retryable,
 * naming what stayed unread, rather than wait forever or return a short read.
 */
const ddb = mockClient(DynamoDBClient);
const client = new DynamoDBClient({
  region: "local",
  credentials: { accessKeyId: "x", secretAccessKey: "x" },
});
const ctx = { client, tableName: "throttled", now: () => new Date(), statusShards: 8 };
const ref = { hash: "ab".repeat(32), chunks: 2, bytes: 400_000 };
type Key = { runId: { S: string }; seq: { N: string } };
const keysOf = (input: object) =>
  (input as { RequestItems: Record<string, { Keys: Key[] }> }).RequestItems[ctx.tableName]?.Keys ?? [];
const chunk = (key: Key) => ({ ...key, data: { B: Buffer.from(`chunk ${key.seq.N}`) } });

beforeEach(() => ddb.reset());
afterAll(() => ddb.restore());

describe("reading payload chunks", () => {
  it("asks again for the keys DynamoDB left unprocessed, and only those", async () => {
    ddb.on(BatchGetItemCommand).callsFake((input: object) => {
      const [first, ...rest] = keysOf(input);
      return {
        Responses: { [ctx.tableName]: first ? [chunk(first)] : [] },
        UnprocessedKeys: rest.length > 0 ? { [ctx.tableName]: { Keys: rest } } : {},
      };
    });
    const chunks = await readChunks(ctx, [ref]);
    expect([...chunks].map(([key, data]) => [key, data.toString()])).toEqual([
      [`${ref.hash}/1`, "chunk 1"],
      [`${ref.hash}/2`, "chunk 2"],
    ]);
    const asked = ddb.commandCalls(BatchGetItemCommand).map((call) => keysOf(call.args[0].input));
    expect(asked.map((keys) => keys.map((key) => key.seq.N))).toEqual([["1", "2"], ["2"]]);
    expect(asked[0]?.[0]?.runId.S).toBe(blobPartition(ref.hash));
  });

  it("fails as retryable, naming what stayed unread, when DynamoDB keeps every key unprocessed", async () => {
    ddb.on(BatchGetItemCommand).callsFake((input: object) => ({
      Responses: {},
      UnprocessedKeys: { [ctx.tableName]: { Keys: keysOf(input) } },
    }));
    const error = await readChunks(ctx, [ref]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RetryableError);
    expect((error as Error).message).toContain(`blob#${ref.hash}`);
    expect((error as Error).message).toContain("left 2 of 2 unread");
    expect(ddb.commandCalls(BatchGetItemCommand)).toHaveLength(8);
  });
});
