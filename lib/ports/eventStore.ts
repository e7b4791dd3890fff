import type { RunEvent, RunStarted } from "../core/events.ts";
import type { RunStatus } from "../core/status.ts";

/** The largest event, as JSON, a store holds: DynamoDB's 400 KB item, less room for the key and the copied fields. */
export const MAX_EVENT_BYTES = 400 * 1024 - 4096;

/** Who executes a run right now, and until when that claim holds without renewal. */
export interface Lease {
  owner: string;
  /** Epoch milliseconds. */
  until: number;
}

/**
 * The run-head: one small record per run for listing and leasing. It may lag
 * the log (a crash between an append and the head update) and is repaired
 * from the log by whoever notices.
 */
export interface RunHead {
  runId: string;
  agent: string;
  status: RunStatus;
  lastSeq: number;
  createdAt: string;
  updatedAt: string;
  lease?: Lease;
  /** Bumped by every lease claim; the compare-and-set token for claiming. */
  leaseVersion: number;
}

export interface RunPage {
  runs: RunHead[];
  /** Pass back to get the next page; absent on the last page. */
  cursor?: string;
}

/**
 * The append-only event log of runs. `append` is conditional on the seq being
 * free: two writers can never both write seq N; the loser gets a ConflictError.
 */
export interface EventStore {
  /**
   * Write seq 1 and the head. Idempotent for a caller-chosen run id: a repeat
   * with the same first event returns `created: false`; a different one is a ConflictError.
   */
  createRun(first: RunStarted, lease?: Lease): Promise<{ created: boolean }>;
  /** Append at `event.seq`; ConflictError if that seq is taken. Updates the head after the event is stored. */
  append(runId: string, event: RunEvent, status?: RunStatus): Promise<void>;
  /** Events with seq > afterSeq (default 0), in order. Empty for an unknown run. CorruptEventError on a bad record. */
  read(runId: string, afterSeq?: number): Promise<RunEvent[]>;
  getHead(runId: string): Promise<RunHead | undefined>;
  /** Set the head's status (and lastSeq if it lags), without touching the lease. */
  setStatus(runId: string, status: RunStatus, lastSeq: number): Promise<void>;
  /** Take the lease if its version is still `expectVersion`; ConflictError if someone else got there first. */
  claimLease(runId: string, lease: Lease, expectVersion: number): Promise<void>;
  /** Extend a lease this owner holds; false if it is no longer theirs. */
  renewLease(runId: string, lease: Lease): Promise<boolean>;
  /** Drop the lease if this owner holds it, recording the status the run rests in. */
  releaseLease(runId: string, owner: string, status: RunStatus): Promise<void>;
  /** Heads by most recent update (newest first where the store can); `status` lists only runs in that status. */
  listRuns(options?: { limit?: number; cursor?: string; status?: RunStatus }): Promise<RunPage>;
}
