import {
  type AttributeValue,
  type DynamoDBClient,
  paginateQuery,
  paginateScan,
} from "@aws-sdk/client-dynamodb";
import type { NewEvent, RunEvent } from "../../../lib/core/events.ts";
import { stamp } from "../../../lib/core/storedEvents.ts";

export type Item = Record<string, AttributeValue>;

/** An item's size as DynamoDB counts it (names plus values), close enough to compare with 400 KB. */
export function itemBytes(item: Item): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    bytes += Buffer.byteLength(name);
    if (value.S !== undefined) bytes += Buffer.byteLength(value.S);
    else if (value.N !== undefined) bytes += value.N.length;
    else if (value.B !== undefined) bytes += value.B.length;
    else bytes += Buffer.byteLength(JSON.stringify(value));
  }
  return bytes;
}

/** Every item of the table, read past the store. */
export async function scanAll(client: DynamoDBClient, tableName: string): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of paginateScan({ client }, { TableName: tableName }))
    items.push(...(page.Items ?? []));
  return items;
}

/** Every item of one partition (a run's, or a blob's `blob#<hash>`), read past the store. */
export async function partition(client: DynamoDBClient, tableName: string, runId: string): Promise<Item[]> {
  const items: Item[] = [];
  const pages = paginateQuery(
    { client },
    {
      TableName: tableName,
      KeyConditionExpression: "runId = :runId",
      ExpressionAttributeValues: { ":runId": { S: runId } },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) items.push(...(page.Items ?? []));
  return items;
}

/**
 * Count the bytes every write of this client sends, to show what a write costs: the items of
 * PutItem and BatchWriteItem, the key and values of UpdateItem (an update that copied a payload
 * would show here as much as a put).
 */
export function countWriteBytes(client: DynamoDBClient): { bytes: number } {
  const counter = { bytes: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as {
        Item?: Item;
        Key?: Item;
        ExpressionAttributeValues?: Item;
        RequestItems?: Record<string, { PutRequest?: { Item: Item } }[]>;
      };
      if (context.commandName === "PutItemCommand" && input.Item) counter.bytes += itemBytes(input.Item);
      if (context.commandName === "UpdateItemCommand") {
        counter.bytes += itemBytes(input.Key ?? {}) + itemBytes(input.ExpressionAttributeValues ?? {});
      }
      if (context.commandName === "BatchWriteItemCommand") {
        for (const requests of Object.values(input.RequestItems ?? {})) {
          for (const request of requests)
            if (request.PutRequest) counter.bytes += itemBytes(request.PutRequest.Item);
        }
      }
      return next(args);
    },
    { step: "initialize", name: "countWriteBytes" },
  );
  return counter;
}

/** A finished run whose one tool returned `content`: run_started, call, started, result, answer. */
export function finishedRun(runId: string, content: string, at = new Date()): RunEvent[] {
  const call = { id: "call_0_0", name: "get_weather", arguments: "{}" };
  const events: NewEvent[] = [
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "fetch it" },
    { type: "model_response", text: "", toolCalls: [call], stop: "tool_calls" },
    { type: "tool_started", callId: call.id, name: call.name },
    { type: "tool_result", callId: call.id, name: call.name, content, isError: false },
    { type: "model_response", text: "Done", toolCalls: [], stop: "stop" },
  ];
  return events.map((event, i) => stamp(event, i + 1, at));
}

/** About `bytes` of text that compresses well, unique to `seed` (so tests never share a blob by accident). */
export function compressibleText(bytes: number, seed: string): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `${seed} line ${i}: temperature ${(i * 37) % 41} C, wind ${(i * 13) % 29} km/h, sky clear\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join("").slice(0, bytes);
}
