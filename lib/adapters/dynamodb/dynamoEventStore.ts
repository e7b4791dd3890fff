import { randomUUID } from "node:crypto";
import { type DynamoDBClient, PutItemCommand, QueryCommand } from "@aws-sdk/client-dynamodb";
import { ConflictError, InvalidInputError } from "../../core/errors.ts";
import type { RunEvent, RunStarted } from "../../core/events.ts";
import { assertSameStart } from "../../core/sameStart.ts";
import type { RunStatus } from "../../core/status.ts";
import type {
  AutoResumes,
  EventPage,
  EventStore,
  Lease,
  ListOptions,
  PageRequest,
  Resting,
  RunHead,
  RunPage,
} from "../../ports/eventStore.ts";
import { newHead } from "../newHead.ts";
import { attempt, attemptConditional, type StoreContext } from "./context.ts";
import { isConditionalFailure, toRunlogError, wasRetried } from "./errors.ts";
import { expireRun } from "./expiry.ts";
import { getHead, getItem, setStatus } from "./heads.ts";
import { encodeHead, type Item, num, readString, str } from "./items.ts";
import { claimLease, releaseLease, renewLease } from "./leases.ts";
import { deleteLeftovers, expiredLeftovers } from "./leftovers.ts";
import { countRunning, listRuns } from "./listing.ts";
import { readPage } from "./page.ts";
import { decodeEventItems, encodeEventItem } from "./payloads.ts";
import { queryPages } from "./queryPages.ts";
import { checkStatusShards } from "./shards.ts";

export interface DynamoEventStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /** @default the system clock */
  clock?: { now(): Date };
  /**
   * How many shards the status index spreads each status over (1 to 32): every process on one
   * table should use the same number; raising it later is safe, lowering it hides heads in the
   * shards above until they are written again. @default 8
   */
  statusShards?: number;
}

function checkPosition(runId: string, seq: number): void {
  if (runId.length === 0) throw new InvalidInputError("runId: expected a non-empty string");
  // Big payloads live in `blob#…` partitions of the same table.
  if (runId.includes("#")) throw new InvalidInputError(`runId: ${runId} must not contain "#"`, { runId });
  if (!Number.isInteger(seq) || seq < 1) {
    throw new InvalidInputError(`seq: expected an integer >= 1 for run ${runId}, got ${seq}`, { runId });
  }
}

/** The run log on one DynamoDB table: events at seq >= 1, the run-head at seq 0 of the same partition. */
export class DynamoEventStore implements EventStore {
  private readonly ctx: StoreContext;

  constructor(options: DynamoEventStoreOptions) {
    const clock = options.clock ?? { now: () => new Date() };
    this.ctx = {
      client: options.client,
      tableName: options.tableName,
      now: () => clock.now(),
      statusShards: checkStatusShards(options.statusShards),
    };
  }

  /**
   * Conditional put of one event: never overwrites; false when the seq is taken. Each put carries a
   * random token, because an SDK retry of a put whose answer was lost fails its condition on the
   * item it wrote itself: the token tells that item apart from another writer's.
   */
  private async putEvent(runId: string, event: RunEvent, what: string): Promise<boolean> {
    const token = randomUUID();
    // A big body is stored (as a blob) before the item that refers to it: the put below stays the commit.
    const item = await encodeEventItem(this.ctx, runId, event);
    try {
      await this.ctx.client.send(
        new PutItemCommand({
          TableName: this.ctx.tableName,
          Item: { ...item, putToken: str(token) },
          ConditionExpression: "attribute_not_exists(runId)",
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionalFailure(error)) throw toRunlogError(error, what, this.ctx.tableName);
      if (!wasRetried(error)) return false;
      const stored = await getItem(this.ctx, runId, event.seq);
      return stored !== undefined && readString(stored, "putToken") === token;
    }
  }

  async createRun(first: RunStarted, lease?: Lease): Promise<{ created: boolean }> {
    const runId = first.runId;
    if (first.type !== "run_started" || first.seq !== 1) {
      throw new InvalidInputError(`createRun(${runId}): expected a run_started event at seq 1`, { runId });
    }
    checkPosition(runId, first.seq);
    const what = `create run ${runId}`;
    // A run removed by retention is absent here as for reads, though TTL deletion may not have
    // reached its items: they are deleted before this run gets a head, so it never meets one.
    // The search runs beside the put of seq 1 (and finds nothing for a new id): no added wait.
    const [written, leftovers] = await Promise.all([
      this.putEvent(runId, first, what),
      expiredLeftovers(this.ctx, runId),
    ]);
    await deleteLeftovers(this.ctx, runId, leftovers);
    // The old run's expired seq 1 took the put's place: now that it is gone, seq 1 is free.
    const created = written || (leftovers.includes(1) && (await this.putEvent(runId, first, what)));
    if (!created) {
      const storedItem = await getItem(this.ctx, runId, 1);
      const [stored] = storedItem ? await this.decodeItems(runId, [storedItem]) : [];
      assertSameStart(first, stored);
      await getHead(this.ctx, runId); // a repeat after a crash between the two writes still leaves a head
      return { created: false };
    }
    const head = newHead(first, lease, this.ctx.now().toISOString());
    const headWritten = await attemptConditional(this.ctx, `create the head of run ${runId}`, () =>
      this.ctx.client.send(
        new PutItemCommand({
          TableName: this.ctx.tableName,
          Item: encodeHead(head, this.ctx.statusShards),
          ConditionExpression: "attribute_not_exists(runId)",
        }),
      ),
    );
    // A reader repaired the head in between (at lease version 0): claim the lease on it instead.
    if (!headWritten && lease) await claimLease(this.ctx, runId, lease, 0);
    return { created: true };
  }

  async append(runId: string, event: RunEvent): Promise<void> {
    checkPosition(runId, event.seq);
    // One write per event: the head is not advanced here (getHead reads the last seq from the log).
    if (!(await this.putEvent(runId, event, `append seq ${event.seq} to run ${runId}`))) {
      throw new ConflictError(`append to run ${runId}: seq ${event.seq} is already taken`, {
        runId,
        seq: event.seq,
      });
    }
  }

  /** Stored event items to events: the one decoding every read path shares. */
  private decodeItems(runId: string, items: readonly Item[]): Promise<RunEvent[]> {
    return decodeEventItems(this.ctx, runId, items);
  }

  async read(runId: string, afterSeq = 0): Promise<RunEvent[]> {
    if (!Number.isInteger(afterSeq)) {
      throw new InvalidInputError(`afterSeq: expected an integer for run ${runId}, got ${afterSeq}`, {
        runId,
      });
    }
    const events: RunEvent[] = [];
    const pages = queryPages(this.ctx, `read run ${runId} after seq ${afterSeq}`, {
      TableName: this.ctx.tableName,
      KeyConditionExpression: "runId = :runId AND #seq > :after",
      ExpressionAttributeNames: { "#seq": "seq" },
      // Never below 0: seq 0 is the head, not an event.
      ExpressionAttributeValues: { ":runId": str(runId), ":after": num(Math.max(0, afterSeq)) },
      ConsistentRead: true,
    });
    for await (const page of pages) events.push(...(await this.decodeItems(runId, page.Items ?? [])));
    return events;
  }

  readPage(runId: string, request: PageRequest): Promise<EventPage> {
    return readPage(this.ctx, runId, request);
  }

  async readBack(runId: string, stop: (event: RunEvent) => boolean): Promise<RunEvent[]> {
    const newestFirst: RunEvent[] = [];
    let startKey: Item | undefined;
    // Small pages first: most tails are a few events; a long tool batch reads its way back in larger ones.
    for (let limit = 8; ; limit = Math.min(limit * 4, 1024)) {
      const page = await attempt(this.ctx, `read the tail of run ${runId}`, () =>
        this.ctx.client.send(
          new QueryCommand({
            TableName: this.ctx.tableName,
            KeyConditionExpression: "runId = :runId AND #seq > :head",
            ExpressionAttributeNames: { "#seq": "seq" },
            ExpressionAttributeValues: { ":runId": str(runId), ":head": num(0) },
            ScanIndexForward: false,
            Limit: limit,
            ConsistentRead: true,
            // paged by hand: the pages grow (8, 32 … 1024 items), which paginateQuery's one Limit cannot do
            ...(startKey ? { ExclusiveStartKey: startKey } : {}),
          }),
        ),
      );
      // One at a time: nothing past the boundary is decoded (or its payload fetched, or judged corrupt).
      for (const item of page.Items ?? []) {
        const [event] = await this.decodeItems(runId, [item]);
        if (!event) continue; // expired
        newestFirst.push(event);
        if (stop(event)) return newestFirst.reverse();
      }
      startKey = page.LastEvaluatedKey;
      if (!startKey) return newestFirst.reverse();
    }
  }

  getHead(runId: string): Promise<RunHead | undefined> {
    return getHead(this.ctx, runId);
  }

  setStatus(runId: string, status: RunStatus, lastSeq: number, agent?: string): Promise<void> {
    return setStatus(this.ctx, runId, status, lastSeq, agent);
  }

  claimLease(runId: string, lease: Lease, expectVersion: number, autoResumes?: AutoResumes): Promise<void> {
    return claimLease(this.ctx, runId, lease, expectVersion, autoResumes);
  }

  renewLease(runId: string, lease: Lease): Promise<boolean> {
    return renewLease(this.ctx, runId, lease);
  }

  releaseLease(runId: string, owner: string, resting: Resting): Promise<boolean> {
    return releaseLease(this.ctx, runId, owner, resting);
  }

  listRuns(options?: ListOptions): Promise<RunPage> {
    return listRuns(this.ctx, options);
  }

  countRunning(ownerScope: string, atMost: number): Promise<number> {
    return countRunning(this.ctx, ownerScope, atMost);
  }

  expire(runId: string, at: Date | null): Promise<void> {
    if (runId.length === 0) throw new InvalidInputError("runId: expected a non-empty string");
    return expireRun(this.ctx, runId, at);
  }
}
