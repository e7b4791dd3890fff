import { randomBytes } from "node:crypto";
import type { RunEvent, RunStarted } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { EventStore, ListOptions, RunHead } from "../../lib/ports/eventStore.ts";

/** A store under test plus raw access to what it stored, to break it on purpose. */
export interface ContractStore {
  store: EventStore;
  raw: RawAccess;
  close(): Promise<void>;
}

/** A stored head as it is: no repair, no lag correction. */
export interface RawHead {
  agent: string;
  status: string;
  lastSeq: number;
}

/** Access past the store, one implementation per storage (DynamoDB items, SQLite rows). */
export interface RawAccess {
  /** The stored head, undefined when there is none. */
  head(runId: string): Promise<RawHead | undefined>;
  deleteHead(runId: string): Promise<void>;
  /** Make the head lag, as after a crash between an append and its head update. */
  setLastSeq(runId: string, lastSeq: number): Promise<void>;
  /** Store an uncompressed event body at `seq` past every check, as a corrupt record would be. */
  putEventBody(runId: string, seq: number, body: string): Promise<void>;
  /** The uncompressed body stored at `seq`, undefined when there is none. */
  eventBody(runId: string, seq: number): Promise<string | undefined>;
  /** The run's expiry in epoch seconds (undefined: none), failing if its records disagree. */
  expiresAt(runId: string): Promise<number | undefined>;
  /** Where the storage limits a record's size: the limit, and the size of each record of the run and its payloads. */
  recordSizes?(runId: string): Promise<{ limit: number; sizes: number[] }>;
}

/** Run ids unique to this test process, so suites can share a table (and re-run on a dirty one). */
export function runIdMaker(): (label: string) => string {
  const prefix = `c${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
  return (label) => `${prefix}-${label}`;
}

export function started(runId: string, input = "hello", at = new Date()): RunStarted {
  return stamp(
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input },
    1,
    at,
  ) as RunStarted;
}

export function message(seq: number, text = `message ${seq}`): RunEvent {
  return stamp({ type: "user_message", text }, seq, new Date());
}

/** Outcomes of racing calls, split into winners and losers. */
export async function race<T>(calls: (() => Promise<T>)[]) {
  const results = await Promise.allSettled(calls.map((call) => call()));
  const won = results.flatMap((r, i) => (r.status === "fulfilled" ? [i] : []));
  const lost = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
  return { won, lost };
}

/** Every page of a listing, two heads a page, by following its cursors: the pages themselves, in order. */
export async function listPages(store: EventStore, options: ListOptions): Promise<RunHead[][]> {
  const pages: RunHead[][] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listRuns({ ...options, limit: 2, ...(cursor ? { cursor } : {}) });
    pages.push(page.runs);
    cursor = page.cursor;
  } while (cursor);
  return pages;
}
