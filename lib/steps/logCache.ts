import type { RunEvent } from "../core/events.ts";
import type { LogFacts } from "../core/log.ts";
import { LogReader, readLog } from "../core/logReader.ts";
import { MessageBuilder, toMessages } from "../core/messageBuilder.ts";
import type { ChatMessage } from "../core/messages.ts";
import type { EventStore } from "../ports/eventStore.ts";
import { backingOf, logSnapshot } from "./logSnapshot.ts";

export interface LogCacheOptions {
  /**
   * Take the cached log for the run's tail: steps decide on it and append after it without
   * reading the store first. Sound anywhere, because an append is conditional (if the log grew,
   * the append loses its seq and the step reads again), and cheap where one process does nearly
   * all the writing: a machine's own orchestrator. Not for Lambdas, whose steps each see the
   * others' writes only by reading. @default false
   */
  trustTail?: boolean;
  /** Roughly how many bytes of events (as JSON) to keep, over all runs. @default 64 MiB */
  maxBytes?: number;
  /**
   * How many runs to keep. Generous, because runs in one process take turns round-robin: with more
   * runs under way than this, least-recently-used evicts each run just before its next turn, and
   * every turn reads and decodes its whole log again (200 runs at once under a bound of 64 spent
   * most of their CPU doing that). The byte budget is what bounds the memory. @default 1024
   */
  maxRuns?: number;
}

const DEFAULT_MAX_RUNS = 1024;

interface Cached {
  /**
   * The log as far as this process knows it. It only grows, at its end, and is never handed out
   * itself: callers get snapshots of it (logSnapshot), which never change.
   */
  events: RunEvent[];
  /** The latest snapshot handed out, while `events` has not grown since: the same one again. */
  snapshot?: readonly RunEvent[];
  bytes: number;
  /** The facts of `events` as far as read: each event is read once, however often they are asked for. */
  reader?: LogReader;
  /** The model's messages of `events` as far as built: each event is folded in once. */
  builder?: MessageBuilder;
}

/** The entry's log as it is now, as a snapshot: the one handed out last while the log has not grown. */
function snapshot(entry: Cached): readonly RunEvent[] {
  if (entry.snapshot?.length !== entry.events.length)
    entry.snapshot = logSnapshot(entry.events, entry.events.length);
  return entry.snapshot;
}

/** Roughly an event's size as JSON: its text and a little for everything else, without writing it out. */
const sizeOf = (event: RunEvent): number => roughSize(event);

function roughSize(value: unknown): number {
  if (typeof value === "string") return value.length + 2;
  if (typeof value !== "object" || value === null) return 8;
  let size = 2;
  if (Array.isArray(value)) {
    for (const item of value) size += roughSize(item) + 1;
    return size;
  }
  for (const key in value) size += key.length + 4 + roughSize((value as Record<string, unknown>)[key]);
  return size;
}

/**
 * A bounded per-process cache of run logs, least recently used out first.
 * Events are immutable once written, so a cached prefix never goes stale: a
 * refresh reads only what comes after it, and a warm step costs no full read.
 */
export class LogCache {
  private readonly runs = new Map<string, Cached>();
  private bytes = 0;
  private readonly maxBytes: number;
  private readonly maxRuns: number;
  readonly trustTail: boolean;

  constructor(
    private readonly store: EventStore,
    options: LogCacheOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.maxRuns = options.maxRuns ?? DEFAULT_MAX_RUNS;
    this.trustTail = options.trustTail ?? false;
  }

  /**
   * The whole log as stored now (cached prefix plus whatever was appended since), as a snapshot:
   * it never changes, whatever the cache learns later.
   */
  async load(runId: string): Promise<readonly RunEvent[]> {
    const cached = this.runs.get(runId);
    const from = cached?.events.length ?? 0;
    // After the last seq held, not after the count held: in a log with a gap the two differ.
    const newer = await this.store.read(runId, cached?.events.at(-1)?.seq ?? 0);
    // Every entry is a prefix of the same log: if an append (or another load) got further while
    // we read, keep what it added and add only what lies beyond. Never a shorter log than cached.
    const entry = this.runs.get(runId) ?? cached ?? { events: [], bytes: 0 };
    const held = this.runs.get(runId) === entry;
    let added = 0;
    for (let i = entry.events.length; i < from + newer.length; i++) {
      const event = i < from ? cached!.events[i]! : newer[i - from]!;
      entry.events.push(event);
      added += sizeOf(event);
    }
    entry.bytes += added;
    this.keep(runId, entry, held ? added : entry.bytes);
    return snapshot(entry);
  }

  /** The log to decide on: the cached one when trusted as the tail, else the stored one. */
  async current(runId: string): Promise<readonly RunEvent[]> {
    const cached = this.trustTail ? this.runs.get(runId) : undefined;
    if (!cached) return this.load(runId);
    this.keep(runId, cached, 0);
    return snapshot(cached);
  }

  /**
   * readLog(events), at the cost of the events not read before when `events` is a snapshot of the
   * log this cache holds for the run (a step's facts then cost what is new, not the length of the run).
   */
  factsOf(runId: string, events: readonly RunEvent[]): LogFacts {
    const entry = this.runs.get(runId);
    // The reader only moves forward: a snapshot older than what it read is read on its own.
    if (!entry || backingOf(events) !== entry.events || (entry.reader?.count ?? 0) > events.length) {
      return readLog(events);
    }
    entry.reader ??= new LogReader();
    const reader = entry.reader;
    // The snapshot is a prefix of entry.events: read those, not each index through its proxy.
    for (let i = reader.count, end = events.length; i < end; i++) reader.read(entry.events[i]!);
    return reader.facts();
  }

  /**
   * toMessages(events), at the cost of the events not folded in before when `events` is the log
   * this cache holds for the run: a model call's messages cost what is new, not the run's length.
   */
  messagesOf(runId: string, events: readonly RunEvent[]): ChatMessage[] {
    const entry = this.runs.get(runId);
    if (!entry || backingOf(events) !== entry.events || (entry.builder?.count ?? 0) > events.length) {
      return toMessages(events);
    }
    entry.builder ??= new MessageBuilder();
    const builder = entry.builder;
    for (let i = builder.count, end = events.length; i < end; i++) builder.add(entry.events[i]!);
    return builder.messages();
  }

  /** Whether this process holds the run's log (so reading it costs only what is new). */
  has(runId: string): boolean {
    return this.runs.has(runId);
  }

  /**
   * Record an event this process appended, so the next load need not read it back. A run's first
   * event starts its log anew: a log held under the same id (a run retention removed) is dropped.
   */
  appended(runId: string, event: RunEvent): void {
    if (event.seq === 1) {
      const old = this.runs.get(runId);
      if (old) this.bytes -= old.bytes;
      this.runs.delete(runId);
      return;
    }
    const cached = this.runs.get(runId);
    if (cached && (cached.events.at(-1)?.seq ?? 0) === event.seq - 1) {
      cached.events.push(event);
      const size = sizeOf(event);
      cached.bytes += size;
      this.keep(runId, cached, size);
    }
  }

  /**
   * Make `entry` the run's entry and the most recently used, counting `added` more bytes for it
   * (all of its bytes when it was not the run's entry), then drop the least recently used runs
   * over the budget.
   */
  private keep(runId: string, entry: Cached, added: number): void {
    const old = this.runs.get(runId);
    if (old && old !== entry) this.bytes -= old.bytes;
    this.runs.delete(runId);
    this.runs.set(runId, entry);
    this.bytes += added;
    // The run just used stays, even alone over the budget: it is the one about to be used again.
    for (const [oldest, cached] of this.runs) {
      if (this.runs.size <= 1 || (this.bytes <= this.maxBytes && this.runs.size <= this.maxRuns)) break;
      this.runs.delete(oldest);
      this.bytes -= cached.bytes;
    }
  }
}
