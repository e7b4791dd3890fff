import { InvalidInputError } from "../../core/errors.ts";
import type { RunStatus } from "../../core/status.ts";

/** How many shards the status index spreads each status over unless told: 8 partitions' write rate. */
export const DEFAULT_STATUS_SHARDS = 8;

/** The most shards: a listing reads every shard of each status it lists, one Query each, in parallel. */
export const MAX_STATUS_SHARDS = 32;

/** The attribute the sharded status index is keyed by: `${status}#${shard}`, on heads only. */
export const STATUS_SHARD_ATTRIBUTE = "statusShard";

/** A shard count as the store takes it; InvalidInputError naming `statusShards` otherwise. */
export function checkStatusShards(shards: number | undefined): number {
  if (shards === undefined) return DEFAULT_STATUS_SHARDS;
  if (!Number.isInteger(shards) || shards < 1 || shards > MAX_STATUS_SHARDS) {
    throw new InvalidInputError(
      `statusShards: expected an integer from 1 to ${MAX_STATUS_SHARDS}, got ${shards}`,
    );
  }
  return shards;
}

/** A stable hash of the run id (32-bit FNV-1a over its UTF-16 code units): the same shard in every process. */
function hashOf(runId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < runId.length; i++) {
    hash ^= runId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The shard a run's head is in: a stable hash of its run id, mod the shard count. */
export function shardOf(runId: string, shards: number): number {
  return hashOf(runId) % shards;
}

/** The sharded index's partition key for a head in `status`. */
export function statusShardOf(status: RunStatus, runId: string, shards: number): string {
  return `${status}#${shardOf(runId, shards)}`;
}

/** Every partition of one status in the sharded index. */
export function statusShardsOf(status: RunStatus, shards: number): string[] {
  return Array.from({ length: shards }, (_, shard) => `${status}#${shard}`);
}
