import {
  CreateTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  PutItemCommand,
  ScanCommand,
  TransactWriteItemsCommand,
} from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tableDefinition } from "../../lib/adapters/dynamodb/table.ts";
import { type InProcessDynalite, startDynalite } from "../support/dynalite.ts";
import { type DynamoDbLocal, startDynamoDbLocal } from "../support/dynamodbLocal.ts";
import { tally } from "./support/tally.ts";

/**
 * Where dynalite (the tests' in-process DynamoDB) and AWS's DynamoDB Local behave
 * differently, asserted so RELIABILITY.md cannot drift from what they do.
 * None of these touch what runlog relies on: the contract suite passes on both.
 */
let dynalite: InProcessDynalite;
const endpoints: Record<"dynalite" | "local", string> = { dynalite: "", local: "" };
let local: DynamoDbLocal;
let observed = 0;

beforeAll(async () => {
  dynalite = await startDynalite();
  endpoints.dynalite = dynalite.endpoint;
  local = await startDynamoDbLocal();
  endpoints.local = local.endpoint;
  for (const endpoint of Object.values(endpoints)) {
    await client(endpoint).send(new CreateTableCommand(tableDefinition("differences")));
  }
});
afterAll(async () => {
  tally("dynalite vs DynamoDB Local", { differencesAsserted: observed });
  await local?.stop();
  await dynalite?.stop();
});

function client(endpoint: string, accessKeyId = "local", region = "local"): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region,
    credentials: { accessKeyId, secretAccessKey: "x" },
    maxAttempts: 1,
  });
}

/** What a call did, in a word: `ok`, or the error's name (and, for a failed condition, whether the item came back). */
async function outcome(call: () => Promise<unknown>): Promise<string> {
  try {
    const result = await call();
    return Array.isArray(result) ? JSON.stringify(result) : "ok";
  } catch (error) {
    const { name, Item } = error as { name: string; Item?: unknown };
    return Item ? `${name} with the stored item` : name;
  }
}

const item = (seq: number, extra: Record<string, { S: string }> = {}) => ({
  runId: { S: "d" },
  seq: { N: String(seq) },
  ...extra,
});

const CASES: [string, (endpoint: string) => Promise<string>, { dynalite: string; local: string }][] = [
  [
    "an empty string as a secondary-index key",
    (e) =>
      outcome(() =>
        client(e).send(
          new PutItemCommand({
            TableName: "differences",
            Item: item(1, { statusShard: { S: "" }, updatedAt: { S: "x" } }),
          }),
        ),
      ),
    { dynalite: "ok", local: "ValidationException" },
  ],
  [
    "ReturnValuesOnConditionCheckFailure on a failed put",
    async (e) => {
      await client(e).send(new PutItemCommand({ TableName: "differences", Item: item(2) }));
      return outcome(() =>
        client(e).send(
          new PutItemCommand({
            TableName: "differences",
            Item: item(2),
            ConditionExpression: "attribute_not_exists(runId)",
            ReturnValuesOnConditionCheckFailure: "ALL_OLD",
          }),
        ),
      );
    },
    {
      dynalite: "ConditionalCheckFailedException",
      local: "ConditionalCheckFailedException with the stored item",
    },
  ],
  [
    "TransactWriteItems",
    (e) =>
      outcome(() =>
        client(e).send(
          new TransactWriteItemsCommand({
            TransactItems: [{ Put: { TableName: "differences", Item: item(3) } }],
          }),
        ),
      ),
    { dynalite: "UnknownOperationException", local: "ok" },
  ],
  [
    "tables seen with another access key",
    (e) => outcome(async () => (await client(e, "anotherkey").send(new ListTablesCommand({}))).TableNames),
    { dynalite: '["differences"]', local: "[]" },
  ],
  [
    "tables seen from another region",
    (e) =>
      outcome(async () => (await client(e, "local", "eu-west-1").send(new ListTablesCommand({}))).TableNames),
    { dynalite: '["differences"]', local: "[]" },
  ],
  [
    "an access key with a hyphen",
    (e) => outcome(() => client(e, "my-key").send(new ListTablesCommand({}))),
    { dynalite: "ok", local: "UnrecognizedClientException" },
  ],
  [
    "items indexed after the empty-string key put",
    (e) =>
      outcome(async () => [
        (await client(e).send(new ScanCommand({ TableName: "differences", IndexName: "byStatusShard" })))
          .Count,
      ]),
    { dynalite: "[1]", local: "[0]" },
  ],
];

describe("dynalite and DynamoDB Local differ on", () => {
  it.each(CASES)("%s", async (_, run, expected) => {
    expect({ dynalite: await run(endpoints.dynalite), local: await run(endpoints.local) }).toEqual(expected);
    observed++;
  });
});
