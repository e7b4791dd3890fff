import { join } from "node:path";
import { InvalidInputError } from "../../core/errors.ts";
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
import { type ConnectionOptions, SqliteConnection } from "./connection.ts";
import { AFTER_FIX } from "./errors.ts";
import { deleteIfExpired, expireRun } from "./expiry.ts";
import { EXPIRY_SWEEP_MS, ExpirySweep } from "./expirySweep.ts";
import { GroupCommit } from "./groupCommit.ts";
import { getHead, insertHead, setStatus } from "./heads.ts";
import { claimLease, releaseLease, renewLease } from "./leases.ts";
import { countRunning, listRuns } from "./listing.ts";
import { encodeEventRow, insertEvent, readBack, readEvent, readEvents } from "./log.ts";
import { readPage } from "./page.ts";

export interface SqliteEventStoreOptions extends ConnectionOptions {
  /**
   * Prepare at open every statement a run executes (connection.ts's runSql), so the process's first
   * run prepares none: for a store that runs execute on, not one opened only to read. @default false
   */
  forRuns?: boolean;
  /**
   * How often a store that stays open deletes a batch of the runs whose expiry has passed (one batch
   * is deleted at open, and a backlog batch after batch). @default EXPIRY_SWEEP_MS (5 minutes)
   */
  expirySweepMs?: number;
}

/** The store's one file in a data dir. */
export const sqliteFile = (dataDir: string) => join(dataDir, "runlog.db");

function checkPosition(runId: string, seq: number): void {
  if (runId.length === 0) throw new InvalidInputError("runId: expected a non-empty string");
  if (!Number.isInteger(seq) || seq < 1) {
    throw new InvalidInputError(`seq: expected an integer >= 1 for run ${runId}, got ${seq}`, { runId });
  }
}

/**
 * The run log in one SQLite file on this machine, opened in-process by every
 * process that uses it (see SqliteConnection for what its settings
 * guarantee). Events are rows keyed by (run_id, seq); the run-head is a row
 * of its own. Runs whose expiry has passed are deleted in the background, in bounded batches
 * (ExpirySweep), from the moment the store opens until it closes.
 */
export class SqliteEventStore implements EventStore {
  private readonly db: SqliteConnection;
  /** Every write of this store, committed in groups (one fsync for the writes of a turn of the event loop). */
  private readonly writes: GroupCommit;
  private readonly expiry: ExpirySweep;

  constructor(options: SqliteEventStoreOptions) {
    this.db = new SqliteConnection(options);
    this.writes = new GroupCommit(this.db);
    try {
      if (options.forRuns) this.db.prepareRunStatements();
    } catch (error) {
      this.db.close();
      throw error;
    }
    const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
    this.expiry = new ExpirySweep(this.db, options.expirySweepMs ?? EXPIRY_SWEEP_MS, warn);
    this.expiry.start();
  }

  /** The database file. */
  get file(): string {
    return this.db.file;
  }

  async createRun(first: RunStarted, lease?: Lease): Promise<{ created: boolean }> {
    const runId = first.runId;
    if (first.type !== "run_started" || first.seq !== 1) {
      throw new InvalidInputError(`createRun(${runId}): expected a run_started event at seq 1`, { runId });
    }
    checkPosition(runId, first.seq);
    const row = await encodeEventRow(runId, first);
    const head = newHead(first, lease, this.db.now().toISOString());
    // Seq 1 and the head commit together: no crash leaves one without the other. A run removed by
    // retention (its expiry passed, its rows not deleted yet) is absent here as for reads: its rows
    // go first, in the same transaction, so the new run never meets one of them.
    const created = await this.writes.write({
      what: `create run ${runId}`,
      facts: { runId, afterFix: AFTER_FIX.startAgain },
      bytes: row.body.bytes,
      run: () => {
        deleteIfExpired(this.db, runId);
        if (!insertEvent(this.db, row)) return undefined;
        return { headWritten: insertHead(this.db, head) };
      },
    });
    if (created) {
      // A head left from a log deleted by hand: claim the lease on it instead, as on DynamoDB.
      if (!created.headWritten && lease) await claimLease(this.db, this.writes, runId, lease, 0);
      return { created: true };
    }
    assertSameStart(first, await readEvent(this.db, runId, 1));
    await getHead(this.db, runId); // a head deleted since (by hand, or by a bug) is rebuilt from the log
    return { created: false };
  }

  async append(runId: string, event: RunEvent): Promise<void> {
    checkPosition(runId, event.seq);
    const row = await encodeEventRow(runId, event);
    // One insert per event, committed with the other appends of this turn of the event loop: the
    // head is not advanced here (getHead reads the last seq from the log).
    return this.writes.append(row);
  }

  async read(runId: string, afterSeq = 0): Promise<RunEvent[]> {
    if (!Number.isInteger(afterSeq)) {
      throw new InvalidInputError(`afterSeq: expected an integer for run ${runId}, got ${afterSeq}`, {
        runId,
      });
    }
    return readEvents(this.db, runId, afterSeq);
  }

  readPage(runId: string, request: PageRequest): Promise<EventPage> {
    return readPage(this.db, runId, request);
  }

  readBack(runId: string, stop: (event: RunEvent) => boolean): Promise<RunEvent[]> {
    return readBack(this.db, runId, stop);
  }

  getHead(runId: string): Promise<RunHead | undefined> {
    return getHead(this.db, runId);
  }

  setStatus(runId: string, status: RunStatus, lastSeq: number, agent?: string): Promise<void> {
    return setStatus(this.db, this.writes, runId, status, lastSeq, agent);
  }

  claimLease(runId: string, lease: Lease, expectVersion: number, autoResumes?: AutoResumes): Promise<void> {
    return claimLease(this.db, this.writes, runId, lease, expectVersion, autoResumes);
  }

  async renewLease(runId: string, lease: Lease): Promise<boolean> {
    return renewLease(this.db, this.writes, runId, lease);
  }

  async releaseLease(runId: string, owner: string, resting: Resting): Promise<boolean> {
    return releaseLease(this.db, this.writes, runId, owner, resting);
  }

  async listRuns(options?: ListOptions): Promise<RunPage> {
    return listRuns(this.db, options);
  }

  async countRunning(ownerScope: string, atMost: number): Promise<number> {
    return countRunning(this.db, ownerScope, atMost);
  }

  async expire(runId: string, at: Date | null): Promise<void> {
    if (runId.length === 0) throw new InvalidInputError("runId: expected a non-empty string");
    expireRun(this.db, runId, at);
  }

  /** Close the file; the store cannot be used after. */
  async close(): Promise<void> {
    this.expiry.stop();
    if (this.db.isOpen) this.writes.flushAll(); // what was written before the close is committed
    this.db.close();
  }
}
