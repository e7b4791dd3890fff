import { paginateQuery, type QueryCommandInput, type QueryCommandOutput } from "@aws-sdk/client-dynamodb";
import type { StoreContext } from "./context.ts";
import { toRunlogError } from "./errors.ts";
import type { Item } from "./items.ts";

/**
 * Every page of a Query, walked by the SDK's own paginator (from `startKey` when given), each
 * request's failure translated into a runlog error naming `what` as `attempt` does. Only the
 * requests are translated: what the caller does with a page throws as it is. Stopping early (a
 * `return` or `break` in the caller's loop) sends no further request.
 */
export async function* queryPages(
  ctx: StoreContext,
  what: string,
  input: QueryCommandInput,
  startKey?: Item,
): AsyncGenerator<QueryCommandOutput> {
  const pages = paginateQuery(
    { client: ctx.client, ...(startKey ? { startingToken: startKey } : {}) },
    input,
  )[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<QueryCommandOutput>;
      try {
        next = await pages.next();
      } catch (error) {
        throw toRunlogError(error, what, ctx.tableName);
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await pages.return?.(undefined);
  }
}
