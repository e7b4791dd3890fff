import type { RunEvent } from "../core/events.ts";
import type { EventStore } from "../ports/eventStore.ts";

/**
 * A bounded per-process cache of run logs. Events are immutable once written,
 * so a cached prefix never goes stale: a refresh reads only what comes after it.
 */
export class LogCache {
  private readonly runs = new Map<string, RunEvent[]>();

  constructor(
    private readonly store: EventStore,
    private readonly maxRuns = 64,
  ) {}

  /** The whole log as stored now (cached prefix plus whatever was appended since). */
  async load(runId: string): Promise<RunEvent[]> {
    const cached = this.runs.get(runId) ?? [];
    const newer = await this.store.read(runId, cached.length);
    const events = newer.length === 0 ? cached : [...cached, ...newer];
    this.remember(runId, events);
    return events;
  }

  /** Record an event this process appended, so the next load need not read it back. */
  appended(runId: string, event: RunEvent): void {
    const cached = this.runs.get(runId);
    if (cached && cached.length === event.seq - 1) this.remember(runId, [...cached, event]);
  }

  private remember(runId: string, events: RunEvent[]): void {
    this.runs.delete(runId);
    this.runs.set(runId, events);
    if (this.runs.size > this.maxRuns) {
      const oldest = this.runs.keys().next().value;
      if (oldest !== undefined) this.runs.delete(oldest);
    }
  }
}
