import {
  type AttributeValue,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { itemBytes, partition } from "../adapters/dynamodb/support.ts";
import type { RawAccess } from "./fixtures.ts";

type Item = Record<string, AttributeValue>;
const rawKey = (runId: string, seq: number): Item => ({ runId: { S: runId }, seq: { N: String(seq) } });

/** Raw access to a DynamoDB table: items at seq >= 1 are events, seq 0 the head, `blob#…` partitions payloads. */
export function dynamoRaw(client: DynamoDBClient, tableName: string): RawAccess {
  const get = async (runId: string, seq: number) =>
    (
      await client.send(
        new GetItemCommand({ TableName: tableName, Key: rawKey(runId, seq), ConsistentRead: true }),
      )
    ).Item;
  return {
    async head(runId) {
      const item = await get(runId, 0);
      return item
        ? { agent: item.agent?.S ?? "", status: item.status?.S ?? "", lastSeq: Number(item.lastSeq?.N) }
        : undefined;
    },
    async deleteHead(runId) {
      await client.send(new DeleteItemCommand({ TableName: tableName, Key: rawKey(runId, 0) }));
    },
    async setLastSeq(runId, lastSeq) {
      await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: rawKey(runId, 0),
          UpdateExpression: "SET lastSeq = :seq",
          ExpressionAttributeValues: { ":seq": { N: String(lastSeq) } },
        }),
      );
    },
    async putEventBody(runId, seq, body) {
      await client.send(
        new PutItemCommand({
          TableName: tableName,
          Item: {
            ...rawKey(runId, seq),
            type: { S: "user_message" },
            at: { S: "2020-01-01T00:00:00Z" },
            body: { S: body },
          },
        }),
      );
    },
    async eventBody(runId, seq) {
      return (await get(runId, seq))?.body?.S;
    },
    async expiresAt(runId) {
      const out = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: "runId = :runId",
          ExpressionAttributeValues: { ":runId": { S: runId } },
          ConsistentRead: true,
        }),
      );
      const ttls = new Set((out.Items ?? []).map((item) => item.expiresAt?.N));
      if (ttls.size !== 1) throw new Error(`run ${runId}: its items disagree on their TTL: ${[...ttls]}`);
      const [ttl] = ttls;
      return ttl === undefined ? undefined : Number(ttl);
    },
    async recordSizes(runId) {
      const items = await partition(client, tableName, runId);
      const hashes = new Set(items.flatMap((item) => (item.blobHash?.S ? [item.blobHash.S] : [])));
      for (const hash of hashes) items.push(...(await partition(client, tableName, `blob#${hash}`)));
      return { limit: 400 * 1024, sizes: items.map(itemBytes) };
    },
  };
}
