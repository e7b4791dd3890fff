import { randomBytes } from "node:crypto";
import {
  type AttributeValue,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { type RunEvent, type RunStarted, stamp } from "../../lib/core/events.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";

/** A store under test plus raw access to its table, to break it on purpose. */
export interface ContractStore {
  store: EventStore;
  rawClient: DynamoDBClient;
  tableName: string;
  close(): Promise<void>;
}

/** Run ids unique to this test process, so suites can share a table (and re-run on a dirty one). */
export function runIdMaker(): (label: string) => string {
  const prefix = `c${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
  return (label) => `${prefix}-${label}`;
}

export function started(runId: string, input = "hello", at = new Date()): RunStarted {
  return stamp(
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input },
    1,
    at,
  ) as RunStarted;
}

export function message(seq: number, text = `message ${seq}`): RunEvent {
  return stamp({ type: "user_message", text }, seq, new Date());
}

type Item = Record<string, AttributeValue>;
const rawKey = (runId: string, seq: number): Item => ({ runId: { S: runId }, seq: { N: String(seq) } });

export async function rawGet(s: ContractStore, runId: string, seq: number): Promise<Item | undefined> {
  const out = await s.rawClient.send(
    new GetItemCommand({ TableName: s.tableName, Key: rawKey(runId, seq), ConsistentRead: true }),
  );
  return out.Item;
}

export async function rawPutEvent(s: ContractStore, runId: string, seq: number, body: string): Promise<void> {
  await s.rawClient.send(
    new PutItemCommand({
      TableName: s.tableName,
      Item: {
        ...rawKey(runId, seq),
        type: { S: "user_message" },
        at: { S: "2020-01-01T00:00:00Z" },
        body: { S: body },
      },
    }),
  );
}

export async function rawDelete(s: ContractStore, runId: string, seq: number): Promise<void> {
  await s.rawClient.send(new DeleteItemCommand({ TableName: s.tableName, Key: rawKey(runId, seq) }));
}

/** Make the head lag, as after a crash between an append and its head update. */
export async function rawSetLastSeq(s: ContractStore, runId: string, lastSeq: number): Promise<void> {
  await s.rawClient.send(
    new UpdateItemCommand({
      TableName: s.tableName,
      Key: rawKey(runId, 0),
      UpdateExpression: "SET lastSeq = :seq",
      ExpressionAttributeValues: { ":seq": { N: String(lastSeq) } },
    }),
  );
}

/** Outcomes of racing calls, split into winners and losers. */
export async function race<T>(calls: (() => Promise<T>)[]) {
  const results = await Promise.allSettled(calls.map((call) => call()));
  const won = results.flatMap((r, i) => (r.status === "fulfilled" ? [i] : []));
  const lost = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
  return { won, lost };
}
