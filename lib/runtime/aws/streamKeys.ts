import * as z from "zod";
import { BLOB_PREFIX } from "../../adapters/dynamodb/blobs.ts";
import type { CommittedKey } from "../../steps/publishLifecycle.ts";

/** The part of a DynamoDB stream record the publisher reads: which item was written, and the record's id. */
const StreamRecord = z.object({
  eventName: z.enum(["INSERT", "MODIFY", "REMOVE"]),
  dynamodb: z.object({
    Keys: z.object({ runId: z.object({ S: z.string().min(1) }), seq: z.object({ N: z.string() }) }),
    SequenceNumber: z.string().min(1),
  }),
});
export const StreamEvent = z.object({ Records: z.array(StreamRecord) });

/** The stream records that are a run's new events (not heads at seq 0, big payloads' chunks, or updates). */
export function committedKeys(event: z.output<typeof StreamEvent>): CommittedKey[] {
  return event.Records.flatMap((record) => {
    const runId = record.dynamodb.Keys.runId.S;
    const seq = Number(record.dynamodb.Keys.seq.N);
    if (record.eventName !== "INSERT" || runId.startsWith(BLOB_PREFIX) || !(seq >= 1)) return [];
    return [{ recordId: record.dynamodb.SequenceNumber, runId, seq }];
  });
}
