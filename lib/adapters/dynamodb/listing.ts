import { QueryCommand, ScanCommand } from "@aws-sdk/client-dynamodb";
import { InvalidInputError } from "../../core/errors.ts";
import type { ListOptions, RunHead, RunPage } from "../../ports/eventStore.ts";
import { pageLimit } from "../paging.ts";
import { attempt, type StoreContext } from "./context.ts";
import { decodeHead, type Item, isExpired, str } from "./items.ts";
import { STATUS_INDEX } from "./table.ts";

/** Callers must treat the cursor as opaque, so its encoding can change with the index. */
export function encodeCursor(lastKey: Item): string {
  return Buffer.from(JSON.stringify(lastKey)).toString("base64url");
}

/** A cursor back into an ExclusiveStartKey, refusing anything listRuns did not issue. */
export function decodeCursor(cursor: string): Item {
  const invalid = () => new InvalidInputError("cursor: expected a cursor returned by listRuns");
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw invalid();
  const item: Item = {};
  for (const [name, value] of Object.entries(parsed)) {
    const s = (value as { S?: unknown }).S;
    const n = (value as { N?: unknown }).N;
    if (typeof s === "string") item[name] = { S: s };
    else if (typeof n === "string" && Number.isFinite(Number(n))) item[name] = { N: n };
    else throw invalid();
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
  const start = options.cursor === undefined ? {} : { ExclusiveStartKey: decodeCursor(options.cursor) };
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
