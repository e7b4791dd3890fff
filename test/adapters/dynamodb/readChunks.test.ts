import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { readChunks } from "../../../lib/adapters/dynamodb/blobs.ts";
import { RetryableError } from "../../../lib/core/errors.ts";

/**
 * What no local server shows: DynamoDB throttling a BatchGetItem for good, answering every call
 * with all its keys unprocessed. The read must fail as retryable, not wait forever.
 */
describe("reading payload chunks", () => {
  it("fails as retryable, naming what stayed unread, when DynamoDB keeps every key unprocessed", async () => {
    let calls = 0;
    const client = {
      send: async (command: { input: { RequestItems: Record<string, { Keys: unknown[] }> } }) => {
        calls++;
        return { Responses: {}, UnprocessedKeys: command.input.RequestItems };
      },
    } as unknown as DynamoDBClient;
    const ctx = { client, tableName: "throttled", now: () => new Date(), statusShards: 8 };
    const ref = { hash: "ab".repeat(32), chunks: 2, bytes: 400_000 };
    const error = await readChunks(ctx, [ref]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RetryableError);
    expect((error as Error).message).toContain(`blob#${ref.hash}`);
    expect(calls).toBe(8);
  });
});
