import {
  type EventBridgeClient,
  PutEventsCommand,
  type PutEventsRequestEntry,
} from "@aws-sdk/client-eventbridge";
import { entryBytes, LIFECYCLE_SOURCE, type LifecycleEvent, MAX_ENTRY_BYTES } from "../../core/lifecycle.ts";
import type { LifecycleBus } from "../../ports/lifecycleBus.ts";

/** PutEvents takes at most ten entries, together at most an entry's 256 KB. */
const MAX_ENTRIES = 10;

/** One lifecycle event as an entry of the bus: source `runlog`, its type as detail-type, its time. */
export const entryOf = (busName: string, event: LifecycleEvent): PutEventsRequestEntry => ({
  EventBusName: busName,
  Source: LIFECYCLE_SOURCE,
  DetailType: event.type,
  Detail: JSON.stringify(event),
  Time: new Date(event.at),
});

/** Consecutive events in PutEvents-sized batches, in order. */
export function batches(events: readonly LifecycleEvent[]): LifecycleEvent[][] {
  const out: LifecycleEvent[][] = [];
  let bytes = 0;
  for (const event of events) {
    const size = entryBytes(event);
    const last = out.at(-1);
    if (last && last.length < MAX_ENTRIES && bytes + size <= MAX_ENTRY_BYTES) {
      last.push(event);
      bytes += size;
    } else {
      out.push([event]);
      bytes = size;
    }
  }
  return out;
}

/**
 * The deployment's bus. A batch is sent only after the one before was accepted whole, and a
 * refused entry stops there: what comes after it is reported unpublished, to be sent again.
 */
export class EventBridgeLifecycleBus implements LifecycleBus {
  constructor(private readonly options: { client: EventBridgeClient; busName: string }) {}

  async put(events: readonly LifecycleEvent[]): Promise<{ published: number; error?: string }> {
    let published = 0;
    for (const batch of batches(events)) {
      const entries = batch.map((event) => entryOf(this.options.busName, event));
      const answer = await this.options.client.send(new PutEventsCommand({ Entries: entries }));
      const failed = (answer.Entries ?? []).findIndex((entry) => entry.ErrorCode !== undefined);
      if ((answer.FailedEntryCount ?? 0) > 0 || failed >= 0) {
        const at = Math.max(0, failed);
        const entry = answer.Entries?.[at];
        return {
          published: published + at,
          error: `${entry?.ErrorCode ?? "failed"}: ${entry?.ErrorMessage ?? ""}`,
        };
      }
      published += batch.length;
    }
    return { published };
  }
}
