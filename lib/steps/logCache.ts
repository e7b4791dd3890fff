import type { RunEvent } from "../core/events.ts";
import { type LogFacts, LogReader, readLog } from "../core/log.ts";
import type { EventStore } from "../ports/eventStore.ts";

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
  /** How many runs to keep. @default 64 */
  maxRuns?: number;
}

interface Cached {
  events: RunEvent[];
  bytes: number;
  /** The facts of `events` as far as read: each event is read once, however often they are asked for. */
  reader?: LogReader;
}

const sizeOf = (event: RunEvent) => JSON.stringify(event).length;

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
    this.maxRuns = options.maxRuns ?? 64;
    this.trustTail = options.trustTail ?? false;
  }

  /** The whole log as stored now (cached prefix plus whatever was appended since). */
  async load(runId: string): Promise<RunEvent[]> {
    const cached = this.runs.get(runId);
    const from = cached?.events.length ?? 0;
    const newer = await this.store.read(runId, from);
    // Every entry is a prefix of the same log: if an append (or another load) got further while
    // we read, keep that one. Never put back a shorter log than the one now cached.
    const latest = this.runs.get(runId);
    if (latest && latest.events.length >= from + newer.length) {
      this.touch(runId, latest);
      return latest.events;
    }
    const events = cached ? [...cached.events, ...newer] : newer;
    this.remember(runId, events, (cached?.bytes ?? 0) + newer.reduce((n, e) => n + sizeOf(e), 0));
    return events;
  }

  /** The log to decide on: the cached one when trusted as the tail, else the stored one. */
  async current(runId: string): Promise<RunEvent[]> {
    const cached = this.trustTail ? this.runs.get(runId) : undefined;
    if (!cached) return this.load(runId);
    this.touch(runId, cached);
    return cached.events;
  }

  /**
   * readLog(events), at the cost of the events not read before when `events` is the log this
   * cache holds for the run (a step's facts then cost what is new, not the length of the run).
   */
  factsOf(runId: string, events: readonly RunEvent[]): LogFacts {
    const entry = this.runs.get(runId);
    if (!entry || entry.events !== events) return readLog(events);
    entry.reader ??= new LogReader();
    const reader = entry.reader;
    for (let i = reader.count; i < events.length; i++) reader.read(events[i]!);
    return reader.facts();
  }

  /** Whether this process holds the run's log (so reading it costs only what is new). */
  has(runId: string): boolean {
    return this.runs.has(runId);
  }

  /** Record an event this process appended, so the next load need not read it back. */
  appended(runId: string, event: RunEvent): void {
    const cached = this.runs.get(runId);
    if (cached && cached.events.length === event.seq - 1) {
      this.remember(runId, [...cached.events, event], cached.bytes + sizeOf(event));
    }
  }

  private touch(runId: string, cached: Cached): void {
    this.runs.delete(runId);
    this.runs.set(runId, cached);
  }

  private remember(runId: string, events: RunEvent[], bytes: number): void {
    const old = this.runs.get(runId);
    if (old) this.bytes -= old.bytes;
    this.runs.delete(runId);
    // Every log cached for a run is a prefix of the same log: what was read of an older one holds.
    const reader = old?.reader && old.reader.count <= events.length ? old.reader : undefined;
    this.runs.set(runId, reader ? { events, bytes, reader } : { events, bytes });
    this.bytes += bytes;
    // The run just used stays, even alone over the budget: it is the one about to be used again.
    for (const [oldest, entry] of this.runs) {
      if (this.runs.size <= 1 || (this.bytes <= this.maxBytes && this.runs.size <= this.maxRuns)) break;
      this.runs.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }
}
