import { QueryCommand, ScanCommand } from "@aws-sdk/client-dynamodb";
import type { ListOptions, RunHead, RunPage } from "../../ports/eventStore.ts";
import { invalidCursor, pageLimit } from "../paging.ts";
import { attempt, type StoreContext } from "./context.ts";
import { decodeHead, type Item, isExpired, str } from "./items.ts";
import { STATUS_INDEX } from "./table.ts";

/** Callers must treat the cursor as opaque, so its encoding can change with the index. */
export function encodeCursor(lastKey: Item): string {
  return Buffer.from(JSON.stringify(lastKey)).toString("base64url");
}

/** The key of an item of the status index, as its LastEvaluatedKey holds it: attribute and type. */
const INDEX_KEY: Record<string, "S" | "N"> = { runId: "S", seq: "N", status: "S", updatedAt: "S" };

/**
 * A cursor back into an ExclusiveStartKey, refusing anything listRuns did not issue: exactly the
 * index's key, of the right types, and (when listing one status) of that status. DynamoDB would
 * otherwise refuse a forged key as a ValidationException, or start a filtered list elsewhere.
 */
export function decodeCursor(cursor: string, status?: string): Item {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch (error) {
    throw invalidCursor(cursor, "it is not base64url JSON", error);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw invalidCursor(cursor, "it is not a key of the status index");
  }
  const item: Item = {};
  for (const [name, value] of Object.entries(parsed)) {
    const type = INDEX_KEY[name];
    const given = type === undefined ? undefined : (value as Record<string, unknown> | null)?.[type];
    if (typeof given !== "string" || (type === "N" && !Number.isFinite(Number(given)))) {
      throw invalidCursor(cursor, `its ${name} is not part of a key of the status index`);
    }
    item[name] = type === "S" ? { S: given } : { N: given };
  }
  const missing = Object.keys(INDEX_KEY).filter((name) => !(name in item));
  if (missing.length > 0) throw invalidCursor(cursor, `it has no ${missing.join(", ")}`);
  if (status !== undefined && item.status?.S !== status) {
    throw invalidCursor(cursor, `it continues a list of ${item.status?.S} runs, not of ${status} runs`);
  }
  return item;
}

/**
 * A page of run-heads from the sparse status index. With a status, newest
 * update first across pages; without one the index is scanned, so only each
 * page is sorted (newest first).
 */
export async function listRuns(ctx: StoreContext, options: ListOptions = {}): Promise<RunPage> {
  const limit = pageLimit(options.limit);
  const start =
    options.cursor === undefined ? {} : { ExclusiveStartKey: decodeCursor(options.cursor, options.status) };
  const status = options.status;
  const out = await attempt(ctx, status ? `list ${status} runs` : "list runs", () =>
    status
      ? ctx.client.send(
          new QueryCommand({
            TableName: ctx.tableName,
            IndexName: STATUS_INDEX,
            KeyConditionExpression: "#status = :status",
            ExpressionAttributeNames: { "#status": "status" },
            ExpressionAttributeValues: { ":status": str(status) },
            ScanIndexForward: false,
            Limit: limit,
            ...start,
          }),
        )
      : ctx.client.send(
          new ScanCommand({ TableName: ctx.tableName, IndexName: STATUS_INDEX, Limit: limit, ...start }),
        ),
  );
  const now = ctx.now();
  // Expired runs are gone to readers, even while DynamoDB has not deleted them yet (a page may come out short).
  const runs = (out.Items ?? [])
    .filter((item) => !isExpired(item, now))
    .map(decodeHead)
    .filter((head): head is RunHead => head !== undefined);
  if (!status) runs.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
  return out.LastEvaluatedKey ? { runs, cursor: encodeCursor(out.LastEvaluatedKey) } : { runs };
}
