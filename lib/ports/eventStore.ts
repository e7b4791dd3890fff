import type { RunEvent, RunStarted } from "../core/events.ts";
import type { Owner } from "../core/principal.ts";
import type { RunStatus } from "../core/status.ts";

/**
 * The largest event, as JSON (UTF-8 bytes), a store holds. Stores split big
 * events across items, so this is a sanity bound, not DynamoDB's 400 KB item.
 */
export const MAX_EVENT_BYTES = 64 * 1024 * 1024;

/** Who executes a run right now, and until when that claim holds without renewal. */
export interface Lease {
  owner: string;
  /** Epoch milliseconds. */
  until: number;
}

/**
 * The sweeper's automatic resumes since the run's latest new message, kept on the head so a
 * sweep decides from the head and the log's tail alone, whatever the run's length.
 */
export interface AutoResumes {
  count: number;
  /** When the latest automatic resume claimed the run (epoch ms); absent while count is 0. */
  lastAt?: number;
}

/** Where a fork was taken: the run it copies and the last event of that run it holds. */
export interface ForkPoint {
  runId: string;
  seq: number;
}

/**
 * The run-head: one small record per run for listing and leasing. Appends do
 * not touch it, so while a run executes its stored `lastSeq` lags the log;
 * getHead reports the log's, and recording a status (finish, release) stores
 * it. A missing head is rebuilt from the log by whoever notices.
 */
export interface RunHead {
  runId: string;
  /** The agent in charge: the one the run started with, or the one a transfer handed it to (recorded when the run rests). */
  agent: string;
  status: RunStatus;
  lastSeq: number;
  createdAt: string;
  updatedAt: string;
  lease?: Lease;
  /** Bumped by every lease claim; the compare-and-set token for claiming. */
  leaseVersion: number;
  /** Absent on a run never resumed automatically (and on heads written before it existed). */
  autoResumes?: AutoResumes;
  /** The run this one was forked from (its run_started's `parent`), so a run's forks can be listed. */
  parent?: ForkPoint;
  /** Whose the run is (its run_started's `owner`); absent on runs started before owners were recorded. */
  owner?: Owner;
}

/** Which page of run-heads `listRuns` returns. */
export interface ListOptions {
  /** At most this many heads (1 to 1,000). @default 50 */
  limit?: number;
  /** Where the previous page ended (its `cursor`). */
  cursor?: string;
  /** Only runs in this status, or in one of these (at least one). */
  status?: RunStatus | readonly RunStatus[];
  /** Only the runs forked from this run (its direct forks, not theirs). */
  parent?: string;
  /** Only the runs of this owner scope (core/principal.ts `ownerScope`): an index, not a filter of every run. */
  owner?: string;
  /** Most recent update first (listing) or least recent first (recovery, which wants the oldest). @default "newestFirst" */
  order?: ListOrder;
  /** Only heads whose updatedAt (ISO time) is at or before this: a bound of the query, not a filter of its pages. */
  updatedAtMost?: string;
}

/** The order of a listing: by updatedAt, ties by runId, both descending or both ascending. */
export type ListOrder = "newestFirst" | "oldestFirst";

export interface RunPage {
  runs: RunHead[];
  /** Pass back to get the next page; absent on the last page. */
  cursor?: string;
}

/** How much of an event's JSON (UTF-8 bytes) an EventSummary previews. */
export const EVENT_PREVIEW_BYTES = 2048;

/** Which slice of a run's log `readPage` reads. */
export interface PageRequest {
  /** Events with seq > afterSeq. @default 0 */
  afterSeq?: number;
  /** At most this many entries (an integer >= 1). */
  limit: number;
  /**
   * The most stored bytes the page's bodies may add up to (an integer >= 1): the page stops before
   * the event that would pass it. An event whose stored body alone is over it is listed as an
   * EventSummary (counted as EVENT_PREVIEW_BYTES), its body not read.
   */
  maxBytes: number;
}

/** An event listed without its body: what it is, how big it is stored, and the start of its JSON. */
export interface EventSummary {
  seq: number;
  type: RunEvent["type"];
  at: string;
  /** The size of its body as stored (compressed or not): its JSON is at least this big. */
  storedBytes: number;
  /** The first EVENT_PREVIEW_BYTES bytes of its JSON (fewer when cut before a split character). */
  preview: string;
}

/** One entry of a page: an event whole, or the summary of one too big for the page. */
export type PageEntry = { event: RunEvent } | { summary: EventSummary };

/** The seq of a page entry, whether listed whole or summarized; undefined for none. */
export const seqOfEntry = (entry: PageEntry | undefined): number | undefined =>
  entry === undefined ? undefined : "event" in entry ? entry.event.seq : entry.summary.seq;

export interface EventPage {
  /** In seq order, without gaps. */
  entries: PageEntry[];
  /** True when the log held events after the last entry when the page was read. */
  more: boolean;
}

/** How a run rests when its lease is dropped (EventStore.releaseLease). */
export interface Resting {
  status: RunStatus;
  /** The log's last seq, when the releaser knows it (the head keeps its own otherwise). */
  lastSeq?: number | undefined;
  /** The agent in charge, when known: after a transfer, the agent the run goes on under. */
  agent?: string | undefined;
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
  /**
   * Append at `event.seq`; ConflictError if that seq is taken. The head is not touched: it learns
   * the last seq when a status is recorded, and getHead reads it from the log meanwhile.
   */
  append(runId: string, event: RunEvent): Promise<void>;
  /** Events with seq > afterSeq (default 0), in order. Empty for an unknown run. CorruptEventError on a bad record. */
  read(runId: string, afterSeq?: number): Promise<RunEvent[]>;
  /**
   * A bounded page of the log: reads no more events than `limit` and no more bodies than
   * `maxBytes`, plus, per summarized event, the start of its body its preview needs (a few KB; on
   * DynamoDB a big event's first stored chunk, up to 300 KB). Empty for an unknown run.
   * InvalidInputError for a bad request; CorruptEventError on a bad record.
   */
  readPage(runId: string, request: PageRequest): Promise<EventPage>;
  /**
   * Events read backwards from the newest, stopping after the first for which `stop` says true
   * (or at seq 1); returned in order, oldest first. Empty for an unknown run. Costs what the tail
   * costs, not what the log does.
   */
  readBack(runId: string, stop: (event: RunEvent) => boolean): Promise<RunEvent[]>;
  /** The head, with `lastSeq` the log's last seq even when the stored head lags behind it. */
  getHead(runId: string): Promise<RunHead | undefined>;
  /**
   * Set the head's status (and lastSeq if it lags), without touching the lease; `agent`, when
   * given, is the agent in charge (after a transfer, not the one the run started with).
   */
  setStatus(runId: string, status: RunStatus, lastSeq: number, agent?: string): Promise<void>;
  /**
   * Take the lease if its version is still `expectVersion`; ConflictError if someone else got there
   * first. `autoResumes`, when given, replaces the head's record in the same write.
   */
  claimLease(runId: string, lease: Lease, expectVersion: number, autoResumes?: AutoResumes): Promise<void>;
  /** Extend a lease this owner holds; false if it is no longer theirs. */
  renewLease(runId: string, lease: Lease): Promise<boolean>;
  /**
   * Drop the lease if this owner holds it, recording how the run rests. False, with nothing
   * written, when the lease is not this owner's (taken over, or already released): the caller
   * decides what that means. A head that a writer without the lease moved on since (a cancel:
   * status `cancelled`, or a `lastSeq` beyond the one given) keeps its status, seq and agent; the
   * lease is dropped all the same.
   */
  releaseLease(runId: string, owner: string, resting: Resting): Promise<boolean>;
  /**
   * Heads by most recent update, newest first (ties by run id), or oldest first when asked;
   * `status` lists only runs in that status, `parent` only the forks of that run, `updatedAtMost`
   * only heads not updated since. Expired runs are left out. A cursor continues the listing it
   * came from (the same order), and is opaque.
   */
  listRuns(options?: ListOptions): Promise<RunPage>;
  /**
   * How many runs of an owner scope are `running` by their heads, counted up to `atMost` (a
   * per-owner cap asks whether it is reached, not the exact figure). Reads that owner's index only.
   */
  countRunning(ownerScope: string, atMost: number): Promise<number>;
  /**
   * Make every item of the run (head, events, its share of big payloads) expire at `at`, or never
   * (null). Reads treat a run whose time has passed as absent, before the store deletes it.
   * Idempotent and safe to repeat after a crash; a run that does not exist is left alone.
   */
  expire(runId: string, at: Date | null): Promise<void>;
}
