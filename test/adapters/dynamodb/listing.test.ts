import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoEventStore } from "../../../lib/adapters/dynamodb/dynamoEventStore.ts";
import type { RunHead } from "../../../lib/ports/eventStore.ts";
import { started } from "../../contract/fixtures.ts";
import { type InProcessDynalite, startDynalite } from "../../support/dynalite.ts";
import { connectDynamo } from "../../support/store.ts";

/** Every head, a page of `limit` at a time, as the pages came. */
async function pages(store: DynamoEventStore, limit: number, status?: RunHead["status"]) {
  const out: RunHead[][] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listRuns({
      limit,
      ...(cursor ? { cursor } : {}),
      ...(status ? { status } : {}),
    });
    out.push(page.runs);
    cursor = page.cursor;
  } while (cursor);
  return out;
}

let server: InProcessDynalite;
let client: DynamoDBClient;
/** One instant for every write: every head ties on updatedAt, which the index does not order. */
const clock = { now: () => new Date("2026-12-01T00:00:00.000Z") };
let store: DynamoEventStore;

beforeAll(async () => {
  server = await startDynalite();
  const connected = await connectDynamo({ env: server.env() });
  client = connected.client;
  store = new DynamoEventStore({ client, tableName: connected.tableName, clock });
  for (let i = 0; i < 9; i++) await store.createRun(started(`tie-${i}`, "hi", clock.now()));
  for (const i of [2, 5, 7]) await store.setStatus(`tie-${i}`, "refused", 1);
});
afterAll(async () => {
  client.destroy();
  await server.stop();
});

describe("listRuns on DynamoDB, with every head updated at the same instant", () => {
  it.each([1, 2, 4])(
    "lists each run once, by run id descending, across statuses and pages of %i",
    async (limit) => {
      const listed = await pages(store, limit);
      for (const page of listed) expect(page.length).toBeLessThanOrEqual(limit);
      expect(listed.flat().map((head) => head.runId)).toEqual([
        "tie-8",
        "tie-7",
        "tie-6",
        "tie-5",
        "tie-4",
        "tie-3",
        "tie-2",
        "tie-1",
        "tie-0",
      ]);
    },
  );

  it("lists one status's tied runs once each, by run id descending", async () => {
    expect((await pages(store, 2, "refused")).flat().map((head) => head.runId)).toEqual([
      "tie-7",
      "tie-5",
      "tie-2",
    ]);
  });
});
