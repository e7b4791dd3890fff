import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { isConditionalFailure, toRunlogError } from "./errors.ts";

/** What every store operation needs: the client, the table and the clock (passed in, never global). */
export interface StoreContext {
  client: DynamoDBClient;
  tableName: string;
  now(): Date;
  /** How many shards the status index spreads each status over (shards.ts); every head write names its shard. */
  statusShards: number;
}

/** Run one SDK call, translating any failure into a runlog error that names the operation. */
export async function attempt<T>(ctx: StoreContext, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toRunlogError(error, what, ctx.tableName);
  }
}

/** Run a conditional write: false when its condition did not hold, any other failure thrown as a runlog error. */
export async function attemptConditional(
  ctx: StoreContext,
  what: string,
  call: () => Promise<unknown>,
): Promise<boolean> {
  try {
    await call();
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw toRunlogError(error, what, ctx.tableName);
  }
}
